// Package similarity is the similarity join follow-up dedup runs on: an edit
// ratio over runes (Ratio) and an exact index (Index) that finds every pair
// of texts at or above a threshold without comparing all pairs. It knows
// nothing of follow-ups: callers normalise their texts first. It imports
// only the standard library.
package similarity
