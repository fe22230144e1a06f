package check

// Rules returns every rule, in id order. Adding a rule is one file with a
// type implementing Rule, plus its constructor here.
func Rules() []Rule {
	return []Rule{
		newJournalAppendOnly(),
		newJournalSize(),
		newBridgeNote(),
		newProgressTicks(),
		newProjectRules(),
		newStaleLocks(),
		newQueuedWrites(),
		newNoSecrets(),
		newMemoryIndex(),
		newMemoryHeading(),
		newFollowupTags(),
		newMemoryFrontmatter(),
		newMemoryConfirmed(),
		newDispatchPacks(),
		newTrapPaths(),
	}
}
