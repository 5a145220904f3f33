package demoapp

import (
	"fmt"
	"math"
	"time"
)

// Region is one selectable region of the demo power system: an
// administrative division code (GB/T 2260 style) and its labels.
type Region struct {
	Code    string `json:"code"`    // e.g. "110000"
	Name    string `json:"name"`    // Chinese name, e.g. "北京市"
	English string `json:"english"` // e.g. "Beijing"
	// Days is how many daily records the region has (0: the region has no
	// data, which the reference flow turns into a failure).
	Days int `json:"days"`
	// Base is the mean daily consumption in kWh.
	Base float64 `json:"base"`
}

// Regions lists the regions of the demo, in the order of the <select>.
var Regions = []Region{
	{Code: "110000", Name: "北京市", English: "Beijing", Days: 120, Base: 18200},
	{Code: "310000", Name: "上海市", English: "Shanghai", Days: 120, Base: 21400},
	{Code: "330100", Name: "杭州市", English: "Hangzhou", Days: 75, Base: 9600},
	{Code: "440300", Name: "深圳市", English: "Shenzhen", Days: 40, Base: 15800},
	{Code: "510100", Name: "成都市", English: "Chengdu", Days: 30, Base: 8700},
	{Code: "000000", Name: "测试区", English: "Test area (no data)", Days: 0, Base: 0},
}

// FirstDay is the date of every region's first record; records are daily
// from it on.
var FirstDay = time.Date(2026, time.June, 1, 0, 0, 0, 0, time.UTC)

// Record is one row of the data table: one region's consumption on one day.
// Numbers are formatted strings, exactly as the table shows them.
type Record struct {
	Date   string `json:"date"`   // YYYY-MM-DD
	Region string `json:"region"` // the region's Chinese name
	KWh    string `json:"kWh"`    // consumption, one decimal
	Peak   string `json:"peak"`   // peak load in kW, one decimal
	Valley string `json:"valley"` // off-peak (valley) share of kWh, one decimal
	Cost   string `json:"cost"`   // cost in yuan (CNY), two decimals
}

// FindRegion returns the region with code, or false.
func FindRegion(code string) (Region, bool) {
	for _, r := range Regions {
		if r.Code == code {
			return r, true
		}
	}
	return Region{}, false
}

// rng is a small deterministic generator (splitmix64), so every run of the
// demo shows the same numbers for a region on every machine.
type rng uint64

func (r *rng) next() float64 {
	*r += 0x9e3779b97f4a7c15
	z := uint64(*r)
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9
	z = (z ^ (z >> 27)) * 0x94d049bb133111eb
	z ^= z >> 31
	return float64(z>>11) / float64(1<<53)
}

// values are the unformatted numbers of one record.
type values struct{ kwh, peak, valley, cost float64 }

func dayValues(r Region, day int) values {
	seed := rng(uint64(day) * 1000003)
	for _, c := range r.Code {
		seed = seed*31 + rng(c)
	}
	weekly := 1 + 0.12*math.Sin(2*math.Pi*float64(day)/7)
	kwh := round1(r.Base * weekly * (0.9 + 0.2*seed.next()))
	peak := round1(kwh / 24 * (1.6 + 0.4*seed.next()))
	valley := round1(kwh * (0.25 + 0.1*seed.next()))
	cost := math.Round((kwh-valley)*0.62*100+valley*0.31*100) / 100
	return values{kwh, peak, valley, cost}
}

func round1(f float64) float64 { return math.Round(f*10) / 10 }

// Records returns every record of the region with code, oldest first; nil
// for an unknown code or a region without data.
func Records(code string) []Record {
	r, ok := FindRegion(code)
	if !ok {
		return nil
	}
	out := make([]Record, 0, r.Days)
	for d := 0; d < r.Days; d++ {
		v := dayValues(r, d)
		out = append(out, Record{
			Date:   FirstDay.AddDate(0, 0, d).Format("2006-01-02"),
			Region: r.Name,
			KWh:    fmt.Sprintf("%.1f", v.kwh),
			Peak:   fmt.Sprintf("%.1f", v.peak),
			Valley: fmt.Sprintf("%.1f", v.valley),
			Cost:   fmt.Sprintf("%.2f", v.cost),
		})
	}
	return out
}

// Totals sums the numeric columns of recs, formatted like the table's
// total row (kWh and valley one decimal, peak is the maximum, cost two
// decimals).
func Totals(recs []Record) Record {
	var kwh, peak, valley, cost float64
	for _, r := range recs {
		var k, p, v, c float64
		fmt.Sscan(r.KWh, &k)
		fmt.Sscan(r.Peak, &p)
		fmt.Sscan(r.Valley, &v)
		fmt.Sscan(r.Cost, &c)
		kwh += k
		valley += v
		cost += c
		peak = math.Max(peak, p)
	}
	return Record{
		Date:   "Total",
		KWh:    fmt.Sprintf("%.1f", kwh),
		Peak:   fmt.Sprintf("%.1f", peak),
		Valley: fmt.Sprintf("%.1f", valley),
		Cost:   fmt.Sprintf("%.2f", cost),
	}
}
