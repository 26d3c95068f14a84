/**
 * The shipped example configs pass the exporter's own config check, with their secret files replaced by
 * temporary copies of the Kubernetes Secret example's keys (their paths are cross-checked in kubernetes.test.ts);
 * the Secret's certificate is a placeholder the operator replaces, so a real one stands in for it here.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, expect, it } from 'vitest';
import { parse, parseDocument } from 'yaml';
import { checkConfigFile } from '../../src/config/index.js';
import { read, readYamlDocuments } from './files.js';

const dir = mkdtempSync(join(tmpdir(), 'deploy-config-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const secret = readYamlDocuments('deploy/kubernetes/secret.example.yaml')[0] as { stringData: Record<string, string> };
const configMap = readYamlDocuments('deploy/kubernetes/configmap.yaml')[0] as { data: Record<string, string> };
const passwordFile = join(dir, 'password');
const caFile = join(dir, 'ca.pem');
writeFileSync(passwordFile, secret.stringData.password ?? '');
writeFileSync(caFile, readFileSync(new URL('../config/testdata/ca.pem', import.meta.url), 'utf8'));

/** Writes the config with its secret file paths pointed at the temporary files, and checks it. */
async function problemsOf(name: string, text: string) {
  const doc = parseDocument(text);
  doc.setIn(['defaults', 'password_file'], passwordFile);
  doc.setIn(['defaults', 'tls', 'ca_file'], caFile);
  const file = join(dir, name);
  writeFileSync(file, doc.toString());
  return checkConfigFile(file, {});
}

it('deploy/config.example.yml is a valid config', async () => {
  expect(await problemsOf('example.yml', read('deploy/config.example.yml'))).toEqual([]);
});

it('the ConfigMap config is a valid config', async () => {
  expect(await problemsOf('configmap.yml', configMap.data['config.yml'] ?? '')).toEqual([]);
});

it("refuses the Secret example's placeholder certificate, so that one applied unchanged says so at its path", async () => {
  const placeholder = join(dir, 'placeholder.pem');
  writeFileSync(placeholder, secret.stringData['ca.pem'] ?? '');
  const doc = parseDocument(read('deploy/config.example.yml'));
  doc.setIn(['defaults', 'password_file'], passwordFile);
  doc.setIn(['defaults', 'tls', 'ca_file'], placeholder);
  const file = join(dir, 'placeholder.yml');
  writeFileSync(file, doc.toString());
  expect(await checkConfigFile(file, {})).toEqual([{ path: 'defaults.tls.ca_file', message: `${JSON.stringify(placeholder)} its certificate 1 of 1 cannot be read (cut short or damaged)` }]);
});

it('would report a broken config (the check is real)', async () => {
  const broken = { ...(parse(read('deploy/config.example.yml')) as object), listen: 'nowhere' };
  const problems = await problemsOf('broken.yml', JSON.stringify(broken));
  expect(problems.map((p) => p.path)).toContain('listen');
});
