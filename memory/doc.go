// Package memory holds mnemo's domain: the types of the data model (banks,
// documents, chunks, facts, entities, relations, links, observations, dreams,
// blocks), the contracts every backend and provider implements (Store,
// Embedder) and the error codes every adapter maps.
//
// It imports only the standard library. Pipelines (retain, recall, …) and
// adapters speak in its terms; concrete stores and providers live in their
// own packages and are chosen only by the root façade and cmd/mnemo.
package memory
