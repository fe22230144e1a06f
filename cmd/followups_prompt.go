package cmd

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/git-scribe/git-scribe/followups"
	"github.com/git-scribe/git-scribe/vault"
)

// promptAttempts is how often an unreadable answer is asked again before
// the orphans are left unrouted.
const promptAttempts = 3

// promptRoutes asks ONE batched question routing every orphan, on stderr
// (stdout stays the command's report), and returns the decisions by orphan
// index. An empty answer skips them all; an answer that does not parse, or
// names a destination that cannot be placed, is explained and asked again.
// End of input, or three bad answers, decides nothing.
func promptRoutes(ios *IOStreams, v *vault.Vault, orphans []followups.Candidate, srcs []followups.SourceFile) (map[int]followups.Route, error) {
	w := ios.ErrOut
	fmt.Fprintf(w, "\n%s\n", ios.Bold(fmt.Sprintf("%d follow-up%s from the conversation %s in no durable source:", len(orphans), plural(len(orphans), "", "s"), plural(len(orphans), "is", "are"))))
	for _, o := range orphans {
		fmt.Fprintf(w, "  %d. %s\n", o.N, followupLabel(o))
	}
	var tasks []string
	seen := map[string]bool{}
	for _, o := range orphans {
		if o.Project != "" && !seen[o.Project] {
			seen[o.Project] = true
			for _, t := range v.ActiveTasks(o.Project) {
				tasks = append(tasks, o.Project+"/"+t)
			}
		}
	}
	fmt.Fprintln(w, "Route each: j[:PROJECT] = journal Next · t[:PROJECT] = project todos.md · a[:[PROJECT/]TASK] = active task · s = skip")
	if len(tasks) > 0 {
		fmt.Fprintf(w, "Active tasks: %s\n", strings.Join(tasks, ", "))
	}
	example := strings.TrimSpace(strings.Repeat("j ", min(len(orphans), 3)))
	br := bufio.NewReader(ios.In)
	for attempt := 0; attempt < promptAttempts; attempt++ {
		fmt.Fprintf(w, "Answer for all at once (e.g. %q; one answer applies to every item; Enter skips all): ", example)
		line, err := br.ReadString('\n')
		if err != nil && (!errors.Is(err, io.EOF) || strings.TrimSpace(line) == "") {
			fmt.Fprintln(w)
			return nil, nil // no answer: nothing decided
		}
		routes, perr := parseRouteAnswer(line, orphans)
		if perr == nil {
			_, perr = v.Assign(orphans, routes, srcs)
		}
		if perr == nil {
			return routes, nil
		}
		fmt.Fprintf(w, "%s %v\n", ios.Bold("cannot route:"), perr)
	}
	fmt.Fprintln(w, "no usable answer; nothing routed")
	return nil, nil
}

// followupLabel is an orphan as the prompt and the report show it.
func followupLabel(o followups.Candidate) string {
	text := o.Text
	if o.Project != "" {
		text = "(" + o.Project + ") " + text
	}
	return fmt.Sprintf("%s  [%s, turn %d, %q]", text, o.Role, o.Turn+1, o.Keyword)
}

// parseRouteAnswer reads the batched answer: one token per orphan, in
// order, or one token for all. Tokens: j | journal [:PROJECT], t | todos [:PROJECT],
// a | active [:[PROJECT/]TASK], s | skip; commas and spaces separate them.
func parseRouteAnswer(line string, orphans []followups.Candidate) (map[int]followups.Route, error) {
	fields := strings.FieldsFunc(line, func(r rune) bool { return r == ',' || r == ' ' || r == '\t' || r == '\r' || r == '\n' })
	routes := map[int]followups.Route{}
	if len(fields) == 0 {
		for i, o := range orphans {
			routes[i] = followups.Route{Item: strconv.Itoa(o.N), To: followups.RouteSkip}
		}
		return routes, nil
	}
	if len(fields) != 1 && len(fields) != len(orphans) {
		return nil, fmt.Errorf("%d answers for %d follow-ups: give one per follow-up, in order, or one for all", len(fields), len(orphans))
	}
	for i, o := range orphans {
		tok := fields[0]
		if len(fields) > 1 {
			tok = fields[i]
		}
		r, err := parseRouteToken(tok)
		if err != nil {
			return nil, fmt.Errorf("follow-up %d: %w", o.N, err)
		}
		r.Item = strconv.Itoa(o.N)
		routes[i] = r
	}
	return routes, nil
}

func parseRouteToken(tok string) (followups.Route, error) {
	word, arg, _ := strings.Cut(tok, ":")
	var r followups.Route
	switch strings.ToLower(word) {
	case "j", "journal":
		r.To, r.Project = followups.RouteJournal, arg
		return r, nil
	case "t", "todo", "todos":
		r.To, r.Project = followups.RouteTodos, arg
		return r, nil
	case "a", "active":
		r.To = followups.RouteActive
		if p, t, ok := strings.Cut(arg, "/"); ok {
			r.Project, r.Task = p, t
		} else {
			r.Task = arg
		}
		return r, nil
	case "s", "skip":
		r.To = followups.RouteSkip
	default:
		return r, fmt.Errorf("%q is not an answer: use j[:PROJECT], t[:PROJECT], a[:[PROJECT/]TASK] or s", tok)
	}
	if arg != "" {
		return r, fmt.Errorf("%q takes no \":%s\"", word, arg)
	}
	return r, nil
}
