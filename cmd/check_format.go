package cmd

import (
	"encoding/json"
	"fmt"
	"io"
	"net/url"
	"strconv"
	"strings"

	"github.com/git-scribe/git-scribe/check"
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
// finding: ::error file=…,line=…,title=RULE::message.
func writeGitHub(w io.Writer, rep check.Report) error {
	for _, f := range rep.Findings {
		cmd := "notice"
		switch f.Severity {
		case check.SeverityError:
			cmd = "error"
		case check.SeverityWarning:
			cmd = "warning"
		}
		var props []string
		if f.File != "" {
			props = append(props, "file="+ghProperty(f.File))
			if f.Line > 0 {
				props = append(props, "line="+strconv.Itoa(f.Line))
			}
		}
		props = append(props, "title="+ghProperty(f.RuleID))
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
	DefaultConfiguration sarifConfiguration `json:"defaultConfiguration"`
}

type sarifConfiguration struct {
	Level string `json:"level"`
}

type sarifMessage struct {
	Text string `json:"text"`
}

type sarifResult struct {
	RuleID    string          `json:"ruleId"`
	RuleIndex int             `json:"ruleIndex"`
	Level     string          `json:"level"`
	Message   sarifMessage    `json:"message"`
	Locations []sarifLocation `json:"locations,omitempty"`
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

// writeSARIF prints the report as a SARIF 2.1.0 log.
func writeSARIF(w io.Writer, rep check.Report, rules []check.Rule) error {
	driver := sarifDriver{Name: "git-scribe", Version: version(), InformationURI: projectURI, Rules: []sarifRule{}}
	index := map[string]int{}
	for _, r := range rules {
		index[r.ID()] = len(driver.Rules)
		driver.Rules = append(driver.Rules, sarifRule{
			ID: r.ID(), Name: r.Name(),
			ShortDescription:     sarifMessage{Text: r.Describe()},
			DefaultConfiguration: sarifConfiguration{Level: sarifLevel(r.Severity())},
		})
	}
	results := []sarifResult{}
	for _, f := range rep.Findings {
		msg := f.Message
		if f.Fix != "" {
			msg += " Fix: " + f.Fix
		}
		res := sarifResult{RuleID: f.RuleID, RuleIndex: index[f.RuleID], Level: sarifLevel(f.Severity), Message: sarifMessage{Text: msg}}
		if f.File != "" {
			loc := sarifLocation{PhysicalLocation: sarifPhysical{ArtifactLocation: sarifArtifact{URI: (&url.URL{Path: f.File}).String(), URIBaseID: "%SRCROOT%"}}}
			if f.Line > 0 {
				loc.PhysicalLocation.Region = &sarifRegion{StartLine: f.Line}
			}
			res.Locations = []sarifLocation{loc}
		}
		results = append(results, res)
	}
	log := sarifLog{Version: sarifVersion, Schema: sarifSchema, Runs: []sarifRun{{Tool: sarifTool{Driver: driver}, Results: results}}}
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	enc.SetEscapeHTML(false)
	return enc.Encode(log)
}
