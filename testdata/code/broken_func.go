package billing

import "fmt"

// Invoice is a bill sent to one customer.
type Invoice struct {
	ID    string
	Total int
}

// Validate reports whether the invoice can be sent.
func (i Invoice) Validate() error {
	if i.ID == "" {
		return fmt.Errorf("invoice without id")
	}
	return nil
}

// Discount takes pct percent off the total.
// It is being edited and does not compile.
func (i *Invoice) Discount(pct int) {
	if pct > 100 {
		pct = 
	}
	i.Total -= i.Total * pct / 100
}

// Format renders the invoice for an email.
func (i Invoice) Format() string {
	return fmt.Sprintf("%s: %d", i.ID, i.Total)
}

const currency = "EUR"
