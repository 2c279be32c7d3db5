// Package consolidate holds mnemo's consolidation passes: the work that
// turns a pile of facts into memory (DESIGN §6). Each pass is a plain
// function over the narrow store interface it declares here
// ([LifecycleStore] for [Lifecycle]), idempotent, resumable and safe
// while retain and recall continue, and tested directly.
//
// What is not here: deciding when a pass runs (a runner, a loop of the
// façade, is to come), writing the run record (the façade's
// Engine.Consolidate does it through memory.Runs) and any store or
// provider: passes receive contracts only.
//
// Every number the seeds give lives in [Defaults], named, with the seed
// it comes from; [NewDefaults] fills them and callers override any.
package consolidate
