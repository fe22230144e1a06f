package vault

import (
	"fmt"
	"io"
	"os"

	"github.com/git-scribe/git-scribe/notes"
)

// InputOptions say where a wrap's input comes from. Values given by a
// person (Flags, with Set naming the ones given) win over an artifacts
// file's and an agent hook's.
type InputOptions struct {
	Flags notes.WrapInput
	// Set reports whether a person gave the field of this flag name (see
	// notes.WrapInput.Overlay).
	Set func(flag string) bool
	// Artifacts is the dispatch artifacts' file, "-" for Stdin, "" for none.
	Artifacts string
	// LoopReport is a loop report's file ("" for none).
	LoopReport string
	// Hook says Stdin carries an agent hook's JSON.
	Hook  bool
	Stdin io.Reader
}

// ReadWrapInput assembles a wrap's input: the artifacts (YAML/JSON or a
// Scribe Dispatch prompt), then what an agent hook says, then the flags,
// then the loop report; the result is validated. The hook is returned when
// one was read (nil otherwise).
func ReadWrapInput(o InputOptions) (notes.WrapInput, *notes.Hook, error) {
	in := notes.WrapInput{}
	var hook *notes.Hook
	if o.Artifacts != "" {
		var data []byte
		var err error
		if o.Artifacts == "-" {
			if o.Hook {
				return in, nil, fmt.Errorf("--artifacts - and --hook both want stdin; pass the artifacts as a file")
			}
			data, err = io.ReadAll(o.Stdin)
		} else {
			data, err = os.ReadFile(o.Artifacts)
		}
		if err != nil {
			return in, nil, fmt.Errorf("read artifacts: %w", err)
		}
		if in, err = notes.ParseArtifacts(data); err != nil {
			return in, nil, err
		}
	}
	if o.Hook {
		// Bounded: a stdin the agent never closes cannot block the hook.
		data, err := ReadHookInput(o.Stdin, HookInputWait)
		if err != nil {
			return in, nil, fmt.Errorf("read hook input: %w", err)
		}
		h, err := notes.ParseHook(data)
		if err != nil {
			return in, nil, err
		}
		hook = &h
		in = h.Apply(in)
	}
	set := o.Set
	if set == nil {
		set = func(string) bool { return false }
	}
	in = in.Overlay(o.Flags, set)
	if o.LoopReport != "" {
		data, err := os.ReadFile(o.LoopReport)
		if err != nil {
			return in, nil, fmt.Errorf("read loop report: %w", err)
		}
		in.LoopReport = string(data)
	}
	if err := notes.ValidateInput(in); err != nil {
		return in, nil, err
	}
	return in, hook, nil
}
