// Reads a `git scribe check --format json` report on stdin and emits each
// finding with @actions/core (the path of its lib/core.js is argv[2]), the
// way a JavaScript action would: the reference for --format github.
import { readFileSync } from 'node:fs';
import { pathToFileURL } from 'node:url';

const core = await import(pathToFileURL(process.argv[2]).href);
const report = JSON.parse(readFileSync(0, 'utf8'));
for (const f of report.findings) {
  let message = f.message;
  if (f.fix) message += ' — fix: ' + f.fix;
  const props = { title: f.rule_id };
  if (f.file) {
    props.file = f.file;
    if (f.line > 0) props.startLine = f.line;
  }
  const emit = f.severity === 'error' ? core.error : f.severity === 'warning' ? core.warning : core.notice;
  emit(message, props);
}
