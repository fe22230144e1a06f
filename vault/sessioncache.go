package vault

import (
	"crypto/sha256"
	"encoding/hex"
	"path/filepath"

	"github.com/git-scribe/git-scribe/gitops"
	"github.com/git-scribe/git-scribe/notes"
)

// Every command reads every session record (up to ten journaled ones
// besides the open), and a long session's record is tens of KB of YAML:
// ~1.6 ms a parse at 200 commits, so ten of them would be most of a Stop.
// A journaled record does not change, so its parse is kept in scribe's
// state dir by the record's content hash (gob, ~13× faster to read than
// the YAML), for this build of scribe only (gitops.ReadKept: another build may
// parse differently). An open record changes every turn: the Stop that
// writes it keeps what it wrote (keepWrittenSession), which the next Stop
// reads. A cache missing, damaged or of another build is an empty one: it
// costs the parses it saves, never a record.

// cachedRecordMin is the size from which a journaled record's parse is
// kept: ~100 commits, ~0.8 ms of YAML.
const cachedRecordMin = 16 << 10

// sessionCache is the kept parses, read once per process.
type sessionCache struct {
	Records map[string]notes.Session // by sha256 of the record's bytes
	seen    map[string]bool          // keys this process used
	dirty   bool
}

func (v *Vault) sessionCachePath() string {
	return filepath.Join(v.Repo.ScribeDir(), "sessions.cache")
}

// loadSessionCache reads the cache file once; the caller holds
// sessionParsesMu.
func (v *Vault) loadSessionCache() *sessionCache {
	if v.sessionCache != nil {
		return v.sessionCache
	}
	c := &sessionCache{Records: map[string]notes.Session{}, seen: map[string]bool{}}
	v.sessionCache = c
	var kept sessionCache
	if v.Repo != nil && gitops.ReadKept(v.sessionCachePath(), &kept) && kept.Records != nil {
		c.Records = kept.Records
	}
	return c
}

// cachedSession is the kept parse of the record whose hash is key, if any; the caller
// holds sessionParsesMu.
func (v *Vault) cachedSession(key string) (notes.Session, bool) {
	c := v.loadSessionCache()
	s, ok := c.Records[key]
	if ok {
		c.seen[key] = true
	}
	return s, ok
}

// keepWrittenSession keeps the record this process just wrote as b, open
// or not, when it is long: the next Stop reads b back and finds its parse
// here instead of parsing tens of KB of YAML (a 400-commit session's
// record is 66 KB, ~7 ms of YAML a Stop).
func (v *Vault) keepWrittenSession(b []byte, s notes.Session) {
	if len(b) < cachedRecordMin || v.ReadOnly {
		return
	}
	v.sessionParsesMu.Lock()
	v.keepParse(recordKey(b), s)
	v.sessionParsesMu.Unlock()
	v.saveSessionCache()
}

// keepSession adds a journaled record's parse; the caller holds
// sessionParsesMu.
func (v *Vault) keepSession(key string, s notes.Session) {
	if !s.Open() {
		v.keepParse(key, s)
	}
}

// keepParse adds the parse of the record whose hash is key; the caller
// holds sessionParsesMu.
func (v *Vault) keepParse(key string, s notes.Session) {
	c := v.loadSessionCache()
	c.Records[key] = s.Clone()
	c.seen[key] = true
	c.dirty = true
}

// saveSessionCache writes the cache back when parses were added, keeping
// only the records this process read (the vault's current ones).
func (v *Vault) saveSessionCache() {
	v.sessionParsesMu.Lock()
	defer v.sessionParsesMu.Unlock()
	c := v.sessionCache
	if c == nil || !c.dirty || v.ReadOnly || v.Repo == nil {
		return
	}
	keep := sessionCache{Records: map[string]notes.Session{}}
	for k := range c.seen {
		keep.Records[k] = c.Records[k]
	}
	if gitops.WriteKept(v.sessionCachePath(), keep) == nil {
		c.dirty = false
	}
}

// recordKey is the cache key of record bytes b.
func recordKey(b []byte) string {
	h := sha256.Sum256(b)
	return hex.EncodeToString(h[:])
}
