package setup

import (
	"bytes"
	"fmt"
	"strings"
)

// MCPServerName is the key scribe's server gets in a project MCP config.
const MCPServerName = "git-scribe"

// mcpConfig registers `git scribe mcp` with the agent: Claude Code reads
// project servers from .mcp.json at the repository root (merged like
// settings.json). Codex reads MCP servers only from ~/.codex/config.toml,
// outside the repository, which init never writes: it says what to add.
func (p *Plan) mcpConfig(agent string) error {
	switch agent {
	case "claude":
		return p.file(".mcp.json", mcpJSON)
	case "codex":
		p.Warnings = append(p.Warnings, "Codex reads MCP servers from ~/.codex/config.toml (outside this repository, so init leaves it alone); add:\n"+
			"  [mcp_servers.git-scribe]\n  command = \"git\"\n  args = [\"scribe\", \"mcp\"]")
	default:
		p.Warnings = append(p.Warnings, "--mcp registers the MCP server with an agent; pass --agent claude (or run `git scribe mcp` from your MCP client's configuration)")
	}
	return nil
}

// mcpJSON merges scribe's server into .mcp.json, keeping every other server,
// key and the key order; a server already named git-scribe (or one that
// already runs `git scribe mcp`) is left as the person wrote it.
func mcpJSON(cur []byte, ok bool) ([]byte, string) {
	root := &jvalue{isObj: true}
	if ok && len(bytes.TrimSpace(cur)) > 0 {
		v, err := parseJSON(cur)
		if err != nil {
			return nil, fmt.Sprintf("warning: not valid JSON (%v), left alone; fix it or add the git-scribe server by hand (see git scribe init --help)", err)
		}
		if !v.isObj {
			return nil, "warning: not a JSON object, left alone; add the git-scribe server by hand (see git scribe init --help)"
		}
		root = v
	}
	servers := root.get("mcpServers")
	if servers == nil {
		servers = &jvalue{isObj: true}
		root.set("mcpServers", servers)
	} else if !servers.isObj {
		return nil, `warning: "mcpServers" is not an object, left alone`
	}
	if servers.get(MCPServerName) != nil {
		return nil, ""
	}
	for _, m := range servers.obj {
		if m.val.isObj && runsScribeMCP(m.val) {
			return nil, ""
		}
	}
	srv := &jvalue{isObj: true}
	srv.set("type", jstring("stdio"))
	srv.set("command", jstring("git"))
	srv.set("args", &jvalue{isArr: true, arr: []*jvalue{jstring("scribe"), jstring("mcp")}})
	servers.set(MCPServerName, srv)
	return root.render(), "MCP server for Claude Code: git scribe mcp (bridge, journal, progress, status, proposals)"
}

func runsScribeMCP(srv *jvalue) bool {
	var args []string
	if a := srv.get("args"); a != nil && a.isArr {
		for _, x := range a.arr {
			args = append(args, x.str())
		}
	}
	line := strings.TrimSpace(srv.get("command").str() + " " + strings.Join(args, " "))
	return line == "git scribe mcp" || line == "git-scribe mcp" || strings.HasSuffix(line, "/git-scribe mcp")
}
