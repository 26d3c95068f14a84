/**
 * The Kubernetes manifests, cross-checked: names, labels, ports and paths agree between the Deployment, Service,
 * ServiceMonitor, ConfigMap and Secret, and the kustomization lists what it should.
 */
import { existsSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { EXPORTER_PORT, documentedConfigPaths, keyPaths, readYaml, readYamlDocuments, repoRoot } from './files.js';

const DIR = 'deploy/kubernetes';

interface Manifest {
  kind: string;
  metadata: { name: string; namespace?: string; labels?: Record<string, string> };
  [key: string]: unknown;
}
interface Container {
  image: string;
  env: { name: string; value: string }[];
  ports: { name: string; containerPort: number }[];
  livenessProbe: { httpGet: { path: string; port: string | number } };
  readinessProbe: { httpGet: { path: string; port: string | number } };
  resources: { requests: Record<string, string>; limits: Record<string, string> };
  securityContext: { readOnlyRootFilesystem: boolean; allowPrivilegeEscalation: boolean; capabilities: { drop: string[] } };
  volumeMounts: { name: string; mountPath: string }[];
}
interface PodSpec {
  securityContext: { runAsNonRoot: boolean; runAsUser: number };
  containers: Container[];
  volumes: { name: string; configMap?: { name: string }; secret?: { secretName: string } }[];
}
interface Deployment extends Manifest {
  spec: { selector: { matchLabels: Record<string, string> }; template: { metadata: { labels: Record<string, string> }; spec: PodSpec } };
}

/** The scale-out alternative to the Deployment, Service and ServiceMonitor; checked on its own below. */
const SHARDED = 'statefulset-sharded.yaml';
const files = readdirSync(join(repoRoot, DIR)).filter((f) => f.endsWith('.yaml') && f !== SHARDED);
const manifests = files
  .filter((f) => f !== 'kustomization.yaml')
  .flatMap((f) => readYamlDocuments(`${DIR}/${f}`) as Manifest[]);
const byKind = <T extends Manifest>(kind: string): T => {
  const found = manifests.filter((m) => m.kind === kind);
  expect(found, kind).toHaveLength(1);
  return found[0] as T;
};
const deployment = byKind<Deployment>('Deployment');
const pod = deployment.spec.template.spec;
const [container] = pod.containers;
const service = byKind<Manifest & { spec: { selector: Record<string, string>; ports: { name: string; port: number; targetPort: string }[] } }>('Service');
const monitor = byKind<Manifest & { spec: { selector: { matchLabels: Record<string, string> }; endpoints: { port: string; path: string }[] } }>('ServiceMonitor');
const configMap = byKind<Manifest & { data: Record<string, string> }>('ConfigMap');
const secret = byKind<Manifest & { stringData: Record<string, string> }>('Secret');
const kustomization = readYaml<{ resources: string[]; images: { name: string }[] }>(`${DIR}/kustomization.yaml`);
const mountOf = (volume: string) => container?.volumeMounts.find((m) => m.name === volume)?.mountPath ?? '';
const subset = (small: Record<string, string>, big: Record<string, string> | undefined) =>
  Object.entries(small).every(([k, v]) => big?.[k] === v);

it('has the expected kinds, none namespaced, and kustomizes all but the Secret example', () => {
  expect(manifests.map((m) => m.kind).sort()).toEqual(
    ['ConfigMap', 'Deployment', 'PrometheusRule', 'Secret', 'Service', 'ServiceMonitor'].sort(),
  );
  for (const m of manifests) expect(m.metadata.namespace, m.kind).toBeUndefined();
  expect(manifests.some((m) => m.kind === 'Namespace')).toBe(false);
  expect([...kustomization.resources].sort()).toEqual(
    files.filter((f) => f !== 'kustomization.yaml' && f !== 'secret.example.yaml').sort(),
  );
  for (const r of kustomization.resources) expect(existsSync(join(repoRoot, DIR, r)), r).toBe(true);
  expect(kustomization.images.map((i) => i.name)).toContain(container?.image.split(':')[0]);
});

describe('Deployment', () => {
  it('exposes 9731 as the port named metrics and probes /-/healthy and /-/ready on it', () => {
    expect(container?.ports).toEqual([expect.objectContaining({ name: 'metrics', containerPort: EXPORTER_PORT })]);
    expect(container?.livenessProbe.httpGet).toEqual({ path: '/-/healthy', port: 'metrics' });
    expect(container?.readinessProbe.httpGet).toEqual({ path: '/-/ready', port: 'metrics' });
  });

  it('runs as the image’s non-root node user with a read-only root file system and bounded resources', () => {
    expect(pod.securityContext).toMatchObject({ runAsNonRoot: true, runAsUser: 1000 });
    expect(container?.securityContext).toMatchObject({ readOnlyRootFilesystem: true, allowPrivilegeEscalation: false });
    expect(container?.securityContext.capabilities.drop).toEqual(['ALL']);
    expect(Object.keys(container?.resources.requests ?? {}).sort()).toEqual(['cpu', 'memory']);
    expect(container?.resources.limits.memory).toBeDefined();
  });

  it('selects its own pods and reads the config from the mounted ConfigMap', () => {
    expect(subset(deployment.spec.selector.matchLabels, deployment.spec.template.metadata.labels)).toBe(true);
    expect(pod.volumes.find((v) => v.name === 'config')?.configMap?.name).toBe(configMap.metadata.name);
    const path = container?.env.find((e) => e.name === 'ROUTEROS_EXPORTER_CONFIG')?.value ?? '';
    expect(Object.keys(configMap.data).map((key) => `${mountOf('config')}/${key}`)).toContain(path);
  });
});

describe('ConfigMap and Secret', () => {
  const config = parse(configMap.data['config.yml'] ?? '') as {
    listen: string;
    defaults: { password_file: string; tls: { ca_file: string } };
  };

  it('holds a config of documented keys listening on 9731', () => {
    const allowed = documentedConfigPaths();
    for (const path of keyPaths(config)) expect(allowed.has(path), path).toBe(true);
    expect(config.listen).toBe(`0.0.0.0:${EXPORTER_PORT}`);
  });

  it('reads the password and CA from keys of the Secret where the Deployment mounts it', () => {
    expect(pod.volumes.find((v) => v.name === 'router-secret')?.secret?.secretName).toBe(secret.metadata.name);
    const dir = mountOf('router-secret');
    for (const file of [config.defaults.password_file, config.defaults.tls.ca_file]) {
      expect(file.startsWith(`${dir}/`), file).toBe(true);
      expect(Object.keys(secret.stringData)).toContain(file.slice(dir.length + 1));
    }
  });
});

describe('Service and ServiceMonitor', () => {
  it('serve port 9731 named metrics, forwarded to the container port of that name', () => {
    expect(service.spec.ports).toEqual([expect.objectContaining({ name: 'metrics', port: EXPORTER_PORT, targetPort: 'metrics' })]);
    expect(subset(service.spec.selector, deployment.spec.template.metadata.labels)).toBe(true);
  });

  it('scrape /metrics on the Service port named metrics', () => {
    expect(subset(monitor.spec.selector.matchLabels, service.metadata.labels)).toBe(true);
    expect(monitor.spec.endpoints).toEqual([expect.objectContaining({ port: 'metrics', path: '/metrics' })]);
  });
});

describe('sharded StatefulSet (scale-out example)', () => {
  interface StatefulSet extends Manifest {
    spec: { serviceName: string; replicas: number; selector: { matchLabels: Record<string, string> }; template: Deployment['spec']['template'] };
  }
  const docs = readYamlDocuments(`${DIR}/${SHARDED}`) as Manifest[];
  const set = docs.find((m) => m.kind === 'StatefulSet') as StatefulSet;
  const headless = docs.find((m) => m.kind === 'Service') as Manifest & { spec: { clusterIP: string; selector: Record<string, string>; publishNotReadyAddresses?: boolean } };
  const shardMonitor = docs.find((m) => m.kind === 'ServiceMonitor') as Manifest & { spec: { selector: { matchLabels: Record<string, string> } } };
  const shardContainer = set.spec.template.spec.containers[0] as unknown as Omit<Container, 'env'> & { args: string[]; env: { name: string; valueFrom?: { fieldRef: { fieldPath: string } } }[] };

  it('runs replicas shards, the pod ordinal being the shard index', () => {
    expect(shardContainer.args).toEqual(['--shard', `$(SHARD_INDEX)/${set.spec.replicas}`]);
    const index = shardContainer.env.find((e) => e.name === 'SHARD_INDEX');
    expect(index?.valueFrom?.fieldRef.fieldPath).toBe("metadata.labels['apps.kubernetes.io/pod-index']");
  });

  it('is scraped pod by pod through its headless Service, with the same ConfigMap and Secret as the Deployment', () => {
    expect(set.spec.serviceName).toBe(headless.metadata.name);
    expect(headless.spec.clusterIP).toBe('None');
    // A shard that is not ready keeps its DNS names, so its failing scrapes page (found by review: it vanished).
    expect(headless.spec.publishNotReadyAddresses).toBe(true);
    expect(subset(set.spec.selector.matchLabels, set.spec.template.metadata.labels)).toBe(true);
    expect(subset(headless.spec.selector, set.spec.template.metadata.labels)).toBe(true);
    expect(subset(shardMonitor.spec.selector.matchLabels, headless.metadata.labels)).toBe(true);
    expect(set.spec.template.spec.volumes).toEqual(pod.volumes);
  });
});

describe('multi-target Prometheus config for the shards', () => {
  const config = readYaml<{ scrape_configs: { job_name: string; relabel_configs?: { target_label?: string }[] }[] }>('deploy/prometheus/multi-target-kubernetes.yml');
  it('labels a router target with nothing that changes when the router moves to another shard', () => {
    for (const job of config.scrape_configs) {
      const labels = (job.relabel_configs ?? []).map((rule) => rule.target_label).filter((label): label is string => label !== undefined && !label.startsWith('__'));
      // instance is the router's name; a `shard` label made new series, and restarted alerts' for:, at every move.
      expect(labels, job.job_name).not.toContain('shard');
    }
  });
});
