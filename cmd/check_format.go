package cmd

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"net/url"
	"strconv"
	"strings"

	"github.com/git-scribe/git-scribe/check"
	"github.com/git-scribe/git-scribe/config"
	"github.com/git-scribe/git-scribe/internal/lazyre"
)

// writeReport renders a check report in one of the check formats.
func writeReport(ios *IOStreams, format string, rep check.Report, rules []check.Rule) error {
	switch format {
	case FormatJSON:
		return printJSON(ios, rep)
	case FormatGitHub:
		return writeGitHub(ios.Out, rep)
	case FormatSARIF:
		return writeSARIF(ios.Out, rep, rules)
	}
	return writeText(ios, rep, len(rules))
}

// writeText prints "file:line: severity RULE message (fix: …)" lines and a
// summary.
func writeText(ios *IOStreams, rep check.Report, rules int) error {
	w := ios.Out
	for _, f := range rep.Findings {
		loc := ""
		switch {
		case f.File != "" && f.Line > 0:
			loc = fmt.Sprintf("%s:%d: ", f.File, f.Line)
		case f.File != "":
			loc = f.File + ": "
		}
		sev := string(f.Severity)
		if f.Severity == check.SeverityError {
			sev = ios.Bold(sev)
		}
		fix := ""
		if f.Fix != "" {
			fix = " " + ios.Dim("(fix: "+f.Fix+")")
		}
		if _, err := fmt.Fprintf(w, "%s%s %s %s%s\n", loc, sev, f.RuleID, f.Message, fix); err != nil {
			return err
		}
	}
	s := rep.Summary
	if len(rep.Findings) == 0 {
		_, err := fmt.Fprintf(w, "vault hygiene: clean (%d %s)\n", rules, plural(rules, "rule", "rules"))
		return err
	}
	_, err := fmt.Fprintf(w, "vault hygiene: %d %s, %d %s\n", s.Errors, plural(s.Errors, "error", "errors"),
		s.Warnings, plural(s.Warnings, "warning", "warnings"))
	return err
}

func plural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}

// writeGitHub prints GitHub Actions workflow commands, one annotation per
// finding: ::error title=RULE,file=…,line=…::message, as @actions/core
// writes them.
func writeGitHub(w io.Writer, rep check.Report) error {
	for _, f := range rep.Findings {
		cmd := "notice"
		switch f.Severity {
		case check.SeverityError:
			cmd = "error"
		case check.SeverityWarning:
			cmd = "warning"
		}
		// Properties in @actions/core's order (toCommandProperties):
		// title, file, line; the output is byte-identical to core.error().
		props := []string{"title=" + ghProperty(f.RuleID)}
		if f.File != "" {
			props = append(props, "file="+ghProperty(f.File))
			if f.Line > 0 {
				props = append(props, "line="+strconv.Itoa(f.Line))
			}
		}
		msg := f.Message
		if f.Fix != "" {
			msg += " — fix: " + f.Fix
		}
		if _, err := fmt.Fprintf(w, "::%s %s::%s\n", cmd, strings.Join(props, ","), ghData(msg)); err != nil {
			return err
		}
	}
	return nil
}

// ghData escapes a workflow command's message.
func ghData(s string) string {
	return strings.NewReplacer("%", "%25", "\r", "%0D", "\n", "%0A").Replace(s)
}

// ghProperty escapes a workflow command's property value.
func ghProperty(s string) string {
	return strings.NewReplacer("%", "%25", "\r", "%0D", "\n", "%0A", ":", "%3A", ",", "%2C").Replace(s)
}

// SARIF 2.1.0, the parts code scanning reads.
const (
	sarifVersion = "2.1.0"
	sarifSchema  = "https://docs.oasis-open.org/sarif/sarif/v2.1.0/errata01/os/schemas/sarif-schema-2.1.0.json"
	projectURI   = "https://github.com/git-scribe/git-scribe"
)

type sarifLog struct {
	Version string     `json:"version"`
	Schema  string     `json:"$schema"`
	Runs    []sarifRun `json:"runs"`
}

type sarifRun struct {
	Tool    sarifTool     `json:"tool"`
	Results []sarifResult `json:"results"`
}

type sarifTool struct {
	Driver sarifDriver `json:"driver"`
}

type sarifDriver struct {
	Name           string      `json:"name"`
	Version        string      `json:"version,omitempty"`
	InformationURI string      `json:"informationUri"`
	Rules          []sarifRule `json:"rules"`
}

type sarifRule struct {
	ID                   string             `json:"id"`
	Name                 string             `json:"name"`
	ShortDescription     sarifMessage       `json:"shortDescription"`
	FullDescription      sarifMessage       `json:"fullDescription"`
	Help                 sarifHelp          `json:"help"`
	DefaultConfiguration sarifConfiguration `json:"defaultConfiguration"`
}

type sarifHelp struct {
	Text     string `json:"text"`
	Markdown string `json:"markdown,omitempty"`
}

type sarifConfiguration struct {
	Level string `json:"level"`
}

type sarifMessage struct {
	Text string `json:"text"`
}

type sarifResult struct {
	RuleID              string            `json:"ruleId"`
	RuleIndex           int               `json:"ruleIndex"`
	Level               string            `json:"level"`
	Message             sarifMessage      `json:"message"`
	Locations           []sarifLocation   `json:"locations"`
	PartialFingerprints map[string]string `json:"partialFingerprints"`
}

type sarifLocation struct {
	PhysicalLocation sarifPhysical `json:"physicalLocation"`
}

type sarifPhysical struct {
	ArtifactLocation sarifArtifact `json:"artifactLocation"`
	Region           *sarifRegion  `json:"region,omitempty"`
}

type sarifArtifact struct {
	URI       string `json:"uri"`
	URIBaseID string `json:"uriBaseId,omitempty"`
}

type sarifRegion struct {
	StartLine int `json:"startLine"`
}

// sarifLevel maps a severity to a SARIF result level.
func sarifLevel(s check.Severity) string {
	switch s {
	case check.SeverityError:
		return "error"
	case check.SeverityWarning:
		return "warning"
	}
	return "note"
}

// sarifRepoFile is where a finding about no file (a lock, a queued write)
// is located: code scanning needs a location for every result, and the
// repository's scribe configuration is where such findings belong.
const sarifRepoFile = config.RepoFile

// sarifToolVersion is the version as SARIF consumers compare it: starting
// with a number ("(devel) 1a2b…" becomes "0.0.0-devel+1a2b…").
func sarifToolVersion(v string) string {
	if t := strings.TrimPrefix(v, "v"); t != "" && t[0] >= '0' && t[0] <= '9' {
		return t
	}
	out := "0.0.0-devel"
	if rest := strings.Fields(strings.NewReplacer("(", "", ")", "").Replace(v)); len(rest) > 1 {
		out += "+" + strings.Join(rest[1:], ".")
	}
	return out
}

var sarifDigits = lazyre.New(`[0-9]+`)

// sarifFingerprint identifies a finding across runs: its rule, place and
// message with numbers (times, counts, line shifts) left out.
func sarifFingerprint(f check.Finding) string {
	h := sha256.Sum256([]byte(f.RuleID + "\x00" + f.File + "\x00" + sarifDigits().ReplaceAllString(f.Message, "0")))
	return hex.EncodeToString(h[:8]) + ":1"
}

// writeSARIF prints the report as a SARIF 2.1.0 log that GitHub code
// scanning ingests: every rule has a full description and help, every
// result a location and a fingerprint.
func writeSARIF(w io.Writer, rep check.Report, rules []check.Rule) error {
	driver := sarifDriver{Name: "git-scribe", Version: sarifToolVersion(version()), InformationURI: projectURI, Rules: []sarifRule{}}
	index := map[string]int{}
	for _, r := range rules {
		index[r.ID()] = len(driver.Rules)
		help := fmt.Sprintf("%s Each finding says how to fix it. Run git scribe check --rule %s locally to see its findings; git scribe check --help lists every rule.", r.Describe(), r.ID())
		driver.Rules = append(driver.Rules, sarifRule{
			ID: r.ID(), Name: r.Name(),
			ShortDescription:     sarifMessage{Text: r.Describe()},
			FullDescription:      sarifMessage{Text: r.Describe()},
			Help:                 sarifHelp{Text: help, Markdown: strings.Replace(strings.Replace(help, "git scribe check --rule "+r.ID(), "`git scribe check --rule "+r.ID()+"`", 1), "git scribe check --help", "`git scribe check --help`", 1)},
			DefaultConfiguration: sarifConfiguration{Level: sarifLevel(r.Severity())},
		})
	}
	results := []sarifResult{}
	for _, f := range rep.Findings {
		msg := f.Message
		if f.Fix != "" {
			msg += " Fix: " + f.Fix
		}
		res := sarifResult{RuleID: f.RuleID, RuleIndex: index[f.RuleID], Level: sarifLevel(f.Severity), Message: sarifMessage{Text: msg},
			PartialFingerprints: map[string]string{"scribeFinding/v1": sarifFingerprint(f)}}
		// Code scanning wants a file and a region for every result: a
		// finding about a whole file is on its line 1, one about no file on
		// line 1 of the repository's scribe configuration.
		file, line := f.File, f.Line
		if file == "" {
			file = sarifRepoFile
		}
		if line <= 0 {
			line = 1
		}
		res.Locations = []sarifLocation{{PhysicalLocation: sarifPhysical{
			ArtifactLocation: sarifArtifact{URI: (&url.URL{Path: file}).String(), URIBaseID: "%SRCROOT%"},
			Region:           &sarifRegion{StartLine: line},
		}}}
		results = append(results, res)
	}
	log := sarifLog{Version: sarifVersion, Schema: sarifSchema, Runs: []sarifRun{{Tool: sarifTool{Driver: driver}, Results: results}}}
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	enc.SetEscapeHTML(false)
	return enc.Encode(log)
}
