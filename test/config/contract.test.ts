/**
 * The compact config example users were given with the contract keeps loading as written. The project owns its
 * contract: the example lives here, in the repository, and nothing is read from outside it.
 */
import { describe, expect, it } from 'vitest';
import { parseYaml } from '../../src/config/yaml.js';
import { firstRouter, resolve, TEST_CA_PEM } from './helpers.js';

const CONTRACT_EXAMPLE = `
listen: 0.0.0.0:9731          # default
log_level: info               # pino levels
web_config_file: web.yml      # optional: exporter-toolkit format (tls_server_config, basic_auth_users with bcrypt hashes) for /metrics and /health
defaults:                     # every key a router may set, applied where a router does not
  username: monitor
  password_file: /run/secrets/routeros   # or password: ..., or password_env: NAME; \${ENV} interpolation works in every string
  timeout: 10s                # per request
  tls: { ca_file: ca.pem, server_name: router.example, insecure_skip_verify: false }
  schedules:                  # node-cron expressions, seconds field allowed
    system: "*/15 * * * * *"
    wireguard: "*/15 * * * * *"
  health:
    handshake_stale_after: 5m # a peer whose latest handshake is older is unhealthy
    ping_loss_critical: 0.5
routers:
  - name: hq                  # unique; becomes the \`router\` label
    url: https://192.0.2.1    # scheme://host[:port]; the client appends /rest
    ping:                     # run on the router (POST /rest/ping), always with a count
      - { target: 10.10.0.2, count: 3, interval: 1s, schedule: "*/30 * * * * *", interface: wg-branch, name: branch-tunnel }
    bandwidth_test:           # optional, run on the router (POST /rest/tool/bandwidth-test), always with a duration
      - { target: 10.10.0.2, duration: 10s, schedule: "0 3 * * *", direction: both, protocol: udp }
`;

describe('the contract example', () => {
  it('parses and resolves', () => {
    const parsed = parseYaml(CONTRACT_EXAMPLE);
    expect(parsed.problems).toEqual([]);
    const config = resolve(parsed.value, {
      files: {
        '/run/secrets/routeros': 'contract-Secret\n',
        '/etc/routeros-exporter/ca.pem': TEST_CA_PEM,
        '/etc/routeros-exporter/web.yml': 'basic_auth_users: {}\n',
      },
    });
    const router = firstRouter(config);
    expect(router.password.reveal()).toBe('contract-Secret');
    expect(router.ping[0]).toMatchObject({ target: '10.10.0.2', name: 'branch-tunnel', interface: 'wg-branch', count: 3 });
    expect(router.bandwidthTest[0]).toMatchObject({ durationSeconds: 10, schedule: '0 3 * * *', direction: 'both', protocol: 'udp' });
    expect(config.webConfigFile).toBe('/etc/routeros-exporter/web.yml');
  });
});
