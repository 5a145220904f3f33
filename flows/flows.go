// Package flows holds rpa's example flows, written against the demo app
// (internal/demoapp), and embeds them so `rpa demo` runs anywhere:
//
//   - query_power_data.flow: the reference scenario of LANGUAGE.md (log in,
//     pick a region, press Query, read the table).
//   - all_pages.flow: the same query, then every page through the pager
//     with a while loop.
//   - region_total.yaml: the YAML form; reads the table's total row.
//   - compare_regions.flow: `call`s query_power_data for two regions.
package flows

import "embed"

// FS holds every flow of this folder (*.flow, *.yaml) at its root.
//
//go:embed *.flow *.yaml
var FS embed.FS
