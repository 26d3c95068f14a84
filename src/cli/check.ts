/** `check`: one collection and health evaluation in the Nagios plugin convention (placeholder until health lands). */
export async function runCheck(_configPath: string, _router?: string): Promise<number> {
  console.log('ROUTEROS UNKNOWN - the check command is not available in this build');
  return 3;
}
