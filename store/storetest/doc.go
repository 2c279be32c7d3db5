// Package storetest is the conformance suite every memory.Store passes:
// store/sqlite runs it on a temporary file, store/postgres on a real
// database (litestream's RunWithReplicaClient, testing/fstest.TestFS).
// Run exercises every method of the contract, each subtest on a fresh
// store, and pins what memory/store.go leaves implicit so that backends
// agree with each other and with the pipelines:
//
//   - Bank ids pass memory.ValidateBankName (else EINVALID); a bank created
//     by Name alone gets it as ID; Banks orders ids bytewise. A deleted and
//     re-created bank starts empty: no embedder, Seq from 1.
//   - Every field written reads back (times with Equal, nil equal to
//     empty), except Fact.Seq, assigned by the store per bank (1..n for the
//     first batch, then increasing in batch order, never reused), and
//     Fact.Embedding, which Facts need not load. Zero times stay zero: the
//     store invents no time. A fact written without Status is active.
//   - A bank with no dimension recorded takes the first vectors'; other
//     dimensions then fail the batch (EINVALID or ECONFLICT).
//   - A duplicate batch applies nothing of itself; a replacing batch removes
//     the old document's chunks, facts, refs and the links from or to its
//     facts, and may reuse its document and fact ids.
//   - A batch fails as a whole, recording nothing, not even its content
//     hash: on a fact id repeated in the batch or already in the bank
//     (EINVALID or ECONFLICT), and on Reinforce or Supersede of an unknown
//     fact (ENOTFOUND).
//   - Entity upserts keep the first Name and Type, add counts, widen the
//     seen range (a zero time widens nothing) and merge aliases without
//     duplicates; two upserts in one batch both apply. A relation written
//     again under its id is updated, not duplicated.
//   - Filters: Statuses nil means active only; Kinds, Categories and Tags match any;
//     the event time (memory.Fact.EventTime) lies in [From, To); only
//     SensitivitySensitive facts need Sensitive. Filters apply before k.
//   - SearchText ORs its terms, folds case, stems, ranks by BM25 (positive,
//     best first) and treats every term as plain words. SearchVector is
//     exact: brute-force cosine to 1e-5.
//   - Facts returns facts of any status and sensitivity; FactsByEntity
//     returns active facts, highest Seq first; RecordAccess, Chunks and
//     the id-list reads ignore unknown ids.
//
// The package also holds helpers that build test data (NewTestBatch,
// NewTestFact, TestVector, …) for other packages' tests. It imports only
// the standard library and package memory, and knows no concrete store.
package storetest
