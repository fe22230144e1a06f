// Package followups owns the pure follow-up logic: the durable sources a
// follow-up can live in (SourceFile, SourceKind) and how each is scanned,
// resolution ("done" anywhere wins), near-duplicate merging, project tags,
// the ACTIVE-STATUS.md dashboard (Regenerate, Dashboard.Render) with its
// persistence audit and the Cache that lets a regeneration redo only what
// changed (its bytes made and read here, kept on disk by vault), extraction of follow-ups said in a conversation
// (ExtractFollowups, MarkDurable), and the decisions that route them
// (RouteFile, Assignment) with the text edits routing makes.
//
// It is text in, text out: sources arrive as their contents, options as
// plain structs (MergeOptions, Keywords), and the dashboard is rebuilt from
// durable sources only, never from itself. It must never import gitops or
// config (nor anything that does), dispatch, cmd, cobra or net/http;
// reading the sources and writing the dashboard is package vault's job.
package followups
