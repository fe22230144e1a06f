// Package transcript reads agent session transcripts into a list of turns.
//
// It owns the three transcript formats git-scribe accepts (SPEC §5 and §6):
// Claude Code session JSONL, Codex rollout JSONL, and plain text or markdown
// with "User:" / "Assistant:" markers. Follow-up extraction (notes) scans the
// turns for keywords; memory (project rules, compound intake) keeps the last
// turns and looks for corrections. Both read through this package so they
// agree on what counts as something a person said.
//
// Reading is forgiving: a transcript is streamed line by line with no line
// length limit, corrupt or truncated lines are skipped and counted in
// Stats.Corrupt, and record types this package does not use are counted in
// Stats.Ignored. Only an I/O error from the underlying reader is an error.
//
// What a turn is, per format:
//
//   - Claude Code: each user line is one turn; the assistant lines that share
//     message.id (one API response split into one content block per line,
//     possibly interleaved with the tool_result lines of parallel tool calls)
//     are grouped into one turn, blocks in order. A user line made only of
//     tool_result blocks is ToolResultOnly. Lines written by the tool rather
//     than the person (isMeta, isCompactSummary, interruption markers,
//     <local-command-stdout>, <task-notification>, <system-reminder>, …) are
//     Meta. A slash command line is reduced to what was typed ("/name args").
//     Every other record type (progress, file-history-snapshot, system,
//     queue-operation, summary and anything new) is ignored.
//   - Codex: response_item messages with role user or assistant are turns;
//     developer and system messages are ignored (instructions, not the
//     person), and injected context (<environment_context>,
//     <user_instructions>, "# AGENTS.md instructions") is Meta. reasoning
//     becomes a thinking block and function_call / custom_tool_call /
//     local_shell_call a tool_use block of the current assistant turn;
//     function_call_output / custom_tool_call_output becomes a ToolResultOnly
//     user turn, mirroring Claude Code's shape. event_msg lines (including
//     user_message, which mirrors the user's response_item) are ignored so
//     nothing is counted twice. Pre-envelope rollouts (bare response items)
//     are read too.
//   - Text: a line starting with User:, Human:, You: or 사용자: starts a user
//     turn; Assistant:, Claude:, AI: or 어시스턴트: starts an assistant turn
//     (case-insensitive, optional markdown "#", "*" or "_" around the marker,
//     ASCII or full-width colon). Text before the first marker is ignored;
//     text with no marker at all is a single user turn.
//
// Stats.Lines counts non-blank lines; every such line is either Corrupt,
// Ignored or contributes to a turn, and every turn comes from at least one
// contributing line.
//
// This package never writes, never touches the network and never calls an
// agent: it turns bytes into values. Redacting secrets from turn text is the
// caller's job, before anything reaches a vault file.
package transcript
