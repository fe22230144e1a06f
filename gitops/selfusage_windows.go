//go:build windows

package gitops

func selfUsage() string { return "" }
