package drivers

import "context"

// Fingerprint describes one element as a page action found it, so that a
// later run can find the same element again when the flow's selectors no
// longer match (package heal; docs/healing.md). It holds what a person
// would recognise the element by and never a form field's value (a value
// may be a secret): input values, textarea contents and select choices are
// left out; Text of a field is empty.
type Fingerprint struct {
	Tag         string   `json:"tag"`
	ID          string   `json:"id,omitempty"`
	Classes     []string `json:"classes,omitempty"`
	Name        string   `json:"name,omitempty"` // the name attribute
	Type        string   `json:"type,omitempty"` // an input's or button's type
	Role        string   `json:"role,omitempty"` // accessible role, as rpa's engine computes it
	AccName     string   `json:"accName,omitempty"`
	Text        string   `json:"text,omitempty"` // rendered text, normalised, at most 120 characters
	Label       string   `json:"label,omitempty"`
	Placeholder string   `json:"placeholder,omitempty"`
	// Attrs are key attributes when present: href (path only), title, alt,
	// aria-label, data-testid (and data-test, data-qa, data-cy), for, src
	// (path only), action (of a form).
	Attrs map[string]string `json:"attrs,omitempty"`
	// Ancestors are up to 5 ancestors, nearest first, each `tag#id.class`.
	Ancestors []string `json:"ancestors,omitempty"`
	// Neighbours are the texts of the nearest element siblings and of the
	// parent's own text (at most 4, 40 characters each).
	Neighbours []string `json:"neighbours,omitempty"`
	// Box is the border box in CSS pixels of the document (scroll added).
	Box Box `json:"box"`
	// Frame is the number of iframe levels above the element's document
	// (0: the document the action ran in).
	Frame int `json:"frame,omitempty"`
}

// HealCandidate is one element of a page scored against a fingerprint.
type HealCandidate struct {
	// Score is the similarity in [0, 1] (1: every feature equal).
	Score float64 `json:"score"`
	// Desc names it for people: `button "Query"`.
	Desc string `json:"desc"`
	// Selectors is the candidate's fallback list from package selectorgen,
	// each matching exactly this element when computed. Candidates
	// leaves it empty (selectors cost more than the scoring on a big
	// page); Healer.CandidateSelectors gives them.
	Selectors []string `json:"selectors"`
	// Ref numbers the candidate for CandidateSelectors (its rank, 0 first).
	Ref int `json:"ref,omitempty"`
	// Frame is the iframe depth of its document below the scored one; a
	// candidate with Frame > 0 is reported, never acted on.
	Frame int `json:"frame,omitempty"`
	// Fingerprint is the candidate's own fingerprint.
	Fingerprint *Fingerprint `json:"fingerprint,omitempty"`
}

// Healer is implemented by a driver's documents (Frame, and so Page) that
// can fingerprint elements and score a page's elements against a
// fingerprint. Optional, like Inspector: callers type-assert and do
// without. drivers/rod implements it.
type Healer interface {
	// Fingerprint describes el, an element of this document (one page
	// evaluation, or none when the locate that found el took it: see
	// TakeFingerprint).
	Fingerprint(ctx context.Context, el Element) (*Fingerprint, error)
	// Candidates scores the elements of this document and of its
	// same-origin iframes against fp in one page evaluation and returns
	// the best max of them, best first (without selectors). visible
	// limits candidates to elements with a box (pointer and input
	// actions).
	Candidates(ctx context.Context, fp *Fingerprint, max int, visible bool) ([]HealCandidate, error)
	// CandidateSelectors returns the selectors of candidate ref of the
	// last Candidates call on this document (nil when it is gone).
	CandidateSelectors(ctx context.Context, ref int) ([]string, error)
}
