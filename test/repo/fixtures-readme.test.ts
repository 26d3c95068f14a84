/**
 * Every reply fixture is described where it lives: recorded/ (copies of real replies) and synthetic/ (replies made
 * for a case) each list exactly their files, so a made-up reply cannot pass for a recording (found by review: an
 * edited copy and fourteen synthetic files sat among the recordings under names that said otherwise).
 */
import { readdirSync, readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';

describe.each(['recorded', 'synthetic'])('test/fixtures/%s', (folder) => {
  const dir = new URL(`../fixtures/${folder}/`, import.meta.url);
  it('lists exactly its files in its README', () => {
    const files = readdirSync(dir).filter((name) => name.endsWith('.json')).sort();
    const listed = [...readFileSync(new URL('README.md', dir), 'utf8').matchAll(/^\| `([^`]+\.json)` \|/gm)].map((match) => match[1]).sort();
    expect(listed).toEqual(files);
  });
});

it('no fixture is in both folders', () => {
  const names = (folder: string) => readdirSync(new URL(`../fixtures/${folder}/`, import.meta.url));
  const synthetic = new Set(names('synthetic'));
  expect(names('recorded').filter((name) => name.endsWith('.json') && synthetic.has(name))).toEqual([]);
});
