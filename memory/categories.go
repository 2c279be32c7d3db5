package memory

import (
	"slices"
	"strings"
)

// Categories returns the known fact categories, in a fixed order: the
// values a Filter or a FactQuery may ask for.
func Categories() []Category {
	return slices.Clone(categories)
}

// CheckCategories checks that every category of cs is known; the first
// unknown one is EINVALID, naming the known ones.
func CheckCategories(cs []Category) error {
	for _, c := range cs {
		if !slices.Contains(categories, c) {
			names := make([]string, len(categories))
			for i, k := range categories {
				names[i] = string(k)
			}
			return Errorf(EINVALID, "unknown category %q (want one of %s)", c, strings.Join(names, ", "))
		}
	}
	return nil
}
