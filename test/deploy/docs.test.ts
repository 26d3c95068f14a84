/**
 * docs/deployment.md names the same things as the kit: Secret name and keys, mount paths, dashboard uids,
 * the ports, and the RouterOS policies of the spec's read-only monitoring user.
 */
import { expect, it } from 'vitest';
import { allDashboards } from '../../scripts/dashboards/dashboards.js';
import { dockerInstructions, keyValues, read, readYaml, readYamlDocuments } from './files.js';

const doc = read('docs/deployment.md');

it('creates the Secret the Deployment mounts, with the keys the ConfigMap reads', () => {
  const secret = readYamlDocuments('deploy/kubernetes/secret.example.yaml')[0] as {
    metadata: { name: string };
    stringData: Record<string, string>;
  };
  const command = /kubectl create secret generic (\S+)((?:\s+\\?\s*--from-file=\S+)+)/.exec(doc);
  expect(command?.[1]).toBe(secret.metadata.name);
  const keys = [...(command?.[2] ?? '').matchAll(/--from-file=([^=\s]+)=/g)].map((m) => m[1]);
  expect(keys.sort()).toEqual(Object.keys(secret.stringData).sort());
  expect(doc).toContain('/run/secrets/routeros-exporter');
});

it('mounts the files the example config expects in the Docker commands', () => {
  const config = readYaml<{ defaults: { password_file: string; tls: { ca_file: string } } }>('deploy/config.example.yml');
  expect(doc).toContain(`:${config.defaults.password_file}:ro`);
  expect(doc).toContain(`:/etc/routeros-exporter/${config.defaults.tls.ca_file}:ro`);
  expect(doc).toContain('ROUTEROS_EXPORTER_CONFIG=/etc/routeros-exporter/config.yml');
});

it('names every dashboard uid and the exporter port', () => {
  for (const d of allDashboards()) expect(doc).toContain(`\`${d.uid}\``);
  expect(doc).toContain('http://localhost:9731');
  expect(doc).toContain('-p 9731:9731');
});

it('gives the monitoring group read, api, rest-api and test, and denies sensitive and write', () => {
  const policy = /\/user group add name=\S+ policy=(\S+)/.exec(doc)?.[1]?.split(',') ?? [];
  expect(policy).toEqual(expect.arrayContaining(['read', 'api', 'rest-api', 'test', '!sensitive', '!write']));
  expect(policy).not.toContain('sensitive');
  expect(policy).not.toContain('write');
  expect(doc).toMatch(/\/ip service set www-ssl certificate=\S+ disabled=no/);
  expect(doc).toMatch(/\/certificate sign \S+ ca=\S+/);
});

it("gives the systemd unit the image's NODE_OPTIONS (V8's young generation at 4 MiB semi-spaces)", () => {
  const env = dockerInstructions(read('Dockerfile')).filter((instruction) => instruction.keyword === 'ENV');
  const image = keyValues(env.map((instruction) => instruction.args).join(' ')).get('NODE_OPTIONS');
  expect(image).toBe('--max-semi-space-size=4');
  expect(doc).toContain(`Environment=NODE_OPTIONS=${image ?? ''}\n`);
});

it("gives the systemd unit the image's glibc mmap threshold (64 KiB: a kept connection's read buffer mapped on its own)", () => {
  const env = dockerInstructions(read('Dockerfile')).filter((instruction) => instruction.keyword === 'ENV');
  const image = keyValues(env.map((instruction) => instruction.args).join(' ')).get('MALLOC_MMAP_THRESHOLD_');
  expect(image).toBe('65536');
  expect(doc).toContain(`Environment=MALLOC_MMAP_THRESHOLD_=${image ?? ''}\n`);
});
