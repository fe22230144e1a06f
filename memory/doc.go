// Package memory owns what a session teaches scribe about its user and
// project (SPEC §6): project rules for CLAUDE.md's "## Project Rules", novel
// trap records, and the compound promotion pipeline — triggers, intake
// snapshots, the four analyzers, the validator with its 5-dimension overlap
// score, gate decisions, the memory store with its MEMORY.md index, the
// rejection history and the detector disable rule.
//
// Everything here is deterministic and LLM-free. Where an agent would write
// better prose or judge better, the package declares a small interface
// (Analyzer, Judge) with deterministic built-ins; cmd plugs dispatch runners
// in. It must never import dispatch, cmd, cobra, net/http or an LLM client,
// never prompt (the command asks the person and hands the answers in), and
// never write a vault file except through gitops' commit transaction, and
// only for a decision a person made: the Store's write methods take the
// decisions, not a question. Runtime state (intake snapshots, the candidate
// queue, pending writes, detector state) lives under the git dir and is never
// committed; the universal trap directory is the only write outside the
// repository. Text reaches a vault file only through the plugged-in Redactor.
package memory
