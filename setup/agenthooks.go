package setup

import (
	"bytes"
	"fmt"
	"strconv"
	"strings"
)

// Scribe's hook commands, as the agent runs them: each is guarded by
// HookGuard, so on a machine without git-scribe (a teammate who never
// installed it) the hook does nothing and exits 0.
const (
	BridgeHookCmd     = HookGuard + bridgeCore
	StopHookCmd       = HookGuard + stopCore
	SessionEndHookCmd = HookGuard + sessionEndCore

	bridgeCore     = "git scribe bridge --hook"
	stopCore       = "git scribe wrap --hook"
	sessionEndCore = "git scribe wrap --hook --session-end"
)

// HookGuard makes a hook command a no-op when git-scribe is not on PATH.
// `! A || B` rather than `A && B || true`: with git-scribe installed the
// command's exit status is scribe's own (a failure still shows). It is one
// line for both runners: Claude Code runs a hook's command through a shell,
// Codex through `$SHELL -lc`; POSIX sh, bash, zsh and fish 3 all read it the
// same way. command -v reads nothing, so the hook JSON on stdin reaches scribe.
const HookGuard = "! command -v git-scribe >/dev/null 2>&1 || "

// SessionEndTimeout is the SessionEnd budget init declares, in seconds:
// without one Claude Code gives SessionEnd hooks 1.5 s (claude-code#33706).
const SessionEndTimeout = 30

// agentHook is one of scribe's hook entries in an agent's hooks file.
type agentHook struct {
	event   string
	matcher string // "" for events without matchers
	core    string // the scribe command, unguarded (what earlier versions wrote)
	timeout int    // seconds; 0 leaves the agent's default
	status  string // Codex's statusMessage; "" for none
}

func (h agentHook) command() string { return HookGuard + h.core }

// sessionStartSources matches every SessionStart source, compact included:
// after /compact the agent needs the bridge note again.
const sessionStartSources = "startup|resume|clear|compact"

// claudeHooks are scribe's entries in .claude/settings.json (Claude Code's
// hooks reference: hooks.<Event>[].{matcher, hooks[].{type, command, timeout}}).
var claudeHooks = []agentHook{
	{event: "SessionStart", matcher: sessionStartSources, core: bridgeCore},
	{event: "Stop", core: stopCore},
	{event: "SessionEnd", core: sessionEndCore, timeout: SessionEndTimeout},
}

// codexHooks are scribe's entries in .codex/hooks.json (the Codex hooks
// documentation: the same shape, plus statusMessage). Codex has no
// SessionEnd event: the next command finalises a session that went idle.
var codexHooks = []agentHook{
	{event: "SessionStart", matcher: sessionStartSources, core: bridgeCore, timeout: 30, status: "git-scribe: reading the bridge note"},
	{event: "Stop", core: stopCore, timeout: 30, status: "git-scribe: recording the turn"},
}

// claudeSettings merges scribe's hooks into .claude/settings.json (or
// settings.local.json), keeping every existing key, hook and the key order.
func claudeSettings(cur []byte, ok bool) ([]byte, string) {
	return mergeHooks(cur, ok, claudeHooks, "Claude Code hooks: SessionStart → bridge, Stop → wrap, SessionEnd → wrap --session-end")
}

// codexHooksJSON merges scribe's hooks into .codex/hooks.json the same way.
func codexHooksJSON(cur []byte, ok bool) ([]byte, string) {
	return mergeHooks(cur, ok, codexHooks, "Codex hooks: SessionStart → bridge, Stop → wrap")
}

// mergeHooks adds the missing entries of specs to an agent's hooks file and
// upgrades scribe's own entries written by earlier versions (the unguarded
// command, a SessionEnd without a timeout, a SessionStart matcher without
// compact) in place; entries a person wrote are left as they are.
func mergeHooks(cur []byte, ok bool, specs []agentHook, describe string) ([]byte, string) {
	root := &jvalue{isObj: true}
	if ok && len(bytes.TrimSpace(cur)) > 0 {
		v, err := parseJSON(cur)
		if err != nil {
			return nil, fmt.Sprintf("warning: not valid JSON (%v), left alone; fix it or add the hooks by hand (see git scribe init --help)", err)
		}
		if !v.isObj {
			return nil, "warning: not a JSON object, left alone; add the hooks by hand (see git scribe init --help)"
		}
		root = v
	}
	hooks := root.get("hooks")
	if hooks == nil {
		hooks = &jvalue{isObj: true}
		root.set("hooks", hooks)
	} else if !hooks.isObj {
		return nil, `warning: "hooks" is not an object, left alone`
	}
	added, upgraded := 0, 0
	for _, h := range specs {
		list := hooks.get(h.event)
		if list == nil {
			list = &jvalue{isArr: true}
			hooks.set(h.event, list)
		} else if !list.isArr {
			return nil, "warning: hooks." + h.event + " is not a list, left alone"
		}
		switch found, changed := upgradeHook(list, h); {
		case changed:
			upgraded++
			continue
		case found:
			continue
		}
		entry := &jvalue{isObj: true}
		if h.matcher != "" {
			entry.set("matcher", jstring(h.matcher))
		}
		entry.set("hooks", &jvalue{isArr: true, arr: []*jvalue{hookObject(h)}})
		list.arr = append(list.arr, entry)
		added++
	}
	switch {
	case added == 0 && upgraded == 0:
		return nil, ""
	case added == 0:
		return root.render(), fmt.Sprintf("upgrade scribe's %d hook(s): a no-op without git-scribe installed, SessionEnd timeout, every SessionStart source", upgraded)
	}
	return root.render(), describe
}

func hookObject(h agentHook) *jvalue {
	cmd := &jvalue{isObj: true}
	cmd.set("type", jstring("command"))
	cmd.set("command", jstring(h.command()))
	if h.timeout > 0 {
		cmd.set("timeout", &jvalue{raw: []byte(strconv.Itoa(h.timeout))})
	}
	if h.status != "" {
		cmd.set("statusMessage", jstring(h.status))
	}
	return cmd
}

// upgradeHook finds scribe's entry for h in list: found reports one (also a
// command a person rewrote around scribe's, which is then left alone),
// changed that an entry scribe wrote was brought up to date.
func upgradeHook(list *jvalue, h agentHook) (found, changed bool) {
	for _, e := range list.arr {
		if !e.isObj {
			continue
		}
		hs := e.get("hooks")
		if hs == nil || !hs.isArr {
			continue
		}
		for _, c := range hs.arr {
			if !c.isObj {
				continue
			}
			cmd := strings.TrimSpace(c.get("command").str())
			if cmd != h.core && cmd != h.command() {
				if runsScribe(cmd, h.core) {
					found = true
				}
				continue
			}
			found = true
			if cmd != h.command() {
				c.set("command", jstring(h.command()))
				changed = true
			}
			if h.timeout > 0 && c.get("timeout") == nil {
				c.set("timeout", &jvalue{raw: []byte(strconv.Itoa(h.timeout))})
				changed = true
			}
			if h.matcher != "" && len(hs.arr) == 1 && e.get("matcher").str() != h.matcher && !matchesAll(e.get("matcher").str(), h.matcher) {
				e.set("matcher", jstring(h.matcher))
				changed = true
			}
		}
	}
	return found, changed
}

// runsScribe reports a person's own command around scribe's (a wrapper
// script line, extra flags): it counts as installed.
func runsScribe(cmd, core string) bool {
	if !strings.Contains(cmd, core) {
		return false
	}
	return core == sessionEndCore || !strings.Contains(cmd, sessionEndCore)
}

// matchesAll reports a matcher that already covers every source in want
// ("*", empty, or a |-list holding each of them).
func matchesAll(have, want string) bool {
	if have == "" || have == "*" {
		return true
	}
	set := map[string]bool{}
	for _, s := range strings.Split(have, "|") {
		set[strings.TrimSpace(s)] = true
	}
	for _, s := range strings.Split(want, "|") {
		if !set[s] {
			return false
		}
	}
	return true
}

// hasScribeHooks reports whether an agent's hooks file already runs any of
// scribe's hook commands (guarded or not).
func hasScribeHooks(data []byte) bool {
	for _, core := range []string{bridgeCore, stopCore} {
		if bytes.Contains(data, []byte(core)) {
			return true
		}
	}
	return false
}
