/**
 * Remote access on the client API: `relay.getStatus`, `relay.setToken` (write-only: the token is
 * never returned) and `relay.setShared`; `relay.statusChanged` is wired by the Hub. Params arrive
 * validated by HubConnection (relayContract.ts).
 */
import type { RelayService } from '../relay/relayService.ts';
import type { HubMethodHandlers } from './hubConnection.ts';

type RelayMethodNames = 'relay.getStatus' | 'relay.setToken' | 'relay.setShared';

export function createRelayMethods(relay: RelayService): Pick<HubMethodHandlers, RelayMethodNames> {
  return {
    'relay.getStatus': () => relay.status,
    'relay.setToken': async ({ token }) => await relay.setToken(token),
    'relay.setShared': ({ terminalId, shared }) => relay.setShared(terminalId, shared),
  };
}
