package memory

// DocumentGone is the ECONFLICT error of a batch that continues a
// document (WriteBatch.Continue) which is no longer its item's stored
// version: replaced by another version, or forgotten, since the batch's
// first segment was written.
func DocumentGone(d *Document) error {
	return Errorf(ECONFLICT, "document %s of item %q (source %s) is no longer stored: replaced or forgotten since its first segment", d.ID, d.ItemID, d.Source)
}
