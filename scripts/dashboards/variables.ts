/**
 * Template variables shared by the dashboards, and the label matchers that use them in queries.
 */
import { DATASOURCE_REF, type DatasourceVariable, type QueryVariable } from './types.js';

/** The uid the provisioned Prometheus data source has (grafana/provisioning/datasources/prometheus.yml). */
export const DEFAULT_DATASOURCE_UID = 'prometheus';
export const DEFAULT_DATASOURCE_NAME = 'Prometheus';

/** Matchers for series of the selected routers, tunnel interfaces and peers. */
export const R = 'router=~"$router"';
export const RI = `${R}, interface=~"$interface"`;
export const RIP = `${RI}, name=~"$peer"`;
/** Matchers for the selected uplinks: ethernet ports of the selected routers (the interface collector's `type`). */
export const RU = `${R}, type="ether", interface=~"$uplink"`;

export function datasourceVariable(): DatasourceVariable {
  return {
    name: 'datasource',
    label: 'Data source',
    type: 'datasource',
    query: 'prometheus',
    current: { selected: false, text: DEFAULT_DATASOURCE_NAME, value: DEFAULT_DATASOURCE_UID },
    hide: 0,
    includeAll: false,
    multi: false,
    options: [],
    refresh: 1,
    regex: '',
  };
}

function queryVariable(name: string, label: string, description: string, query: string): QueryVariable {
  return {
    name,
    label,
    description,
    type: 'query',
    datasource: DATASOURCE_REF,
    definition: query,
    query: { query, refId: 'PrometheusVariableQueryEditor-VariableQuery' },
    current: { selected: true, text: ['All'], value: ['$__all'] },
    hide: 0,
    includeAll: true,
    // `.*` rather than `.+`: peers without a name or comment have an empty `name` label.
    allValue: '.*',
    multi: true,
    options: [],
    refresh: 2,
    regex: '',
    sort: 1,
  };
}

export function routerVariable(): QueryVariable {
  return queryVariable('router', 'Router', 'Routers as configured in the exporter', 'label_values(routeros_up, router)');
}

export function interfaceVariable(): QueryVariable {
  return queryVariable(
    'interface',
    'Interface',
    'WireGuard interfaces of the selected routers',
    `label_values(routeros_wireguard_interface_info{${R}}, interface)`,
  );
}

export function uplinkVariable(): QueryVariable {
  return queryVariable(
    'uplink',
    'Uplink',
    'Ethernet ports of the selected routers, as the interface collector exports them',
    `label_values(routeros_interface_info{${R}, type="ether"}, interface)`,
  );
}

export function peerVariable(): QueryVariable {
  return queryVariable(
    'peer',
    'Peer',
    'Peers by name (RouterOS 7.15+ name, else comment); unnamed peers are shown under All only',
    `label_values(routeros_wireguard_peer_info{${RI}}, name)`,
  );
}

/** The exporter's scrape job, for the panels about the exporter itself. */
export function jobVariable(): QueryVariable {
  return queryVariable(
    'job',
    'Exporter job',
    'Prometheus jobs that scrape routeros-exporter',
    'label_values(routeros_exporter_build_info, job)',
  );
}
