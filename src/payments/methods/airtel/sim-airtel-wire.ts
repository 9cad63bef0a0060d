// What every call to the simulator's Airtel Money API shares: Airtel's answer envelope, its 400,
// and the checks of the bearer token and the country and currency headers.
import type { IncomingMessage } from 'node:http';
import { header, HttpError } from '../../simulator/sim-http.ts';
import { bearerValid, type SimulatorState } from '../../simulator/sim-state.ts';
import { AIRTEL_SIM_CREDENTIALS as creds } from './sim-credentials.ts';

export const airtelEnvelope = (code: string, message: string, resultCode: string, extra: object = {}) => ({
  data: {},
  status: { code, message, result_code: resultCode, success: false, ...extra },
});
export const airtelBad = (message: string, resultCode = 'ESB000008') =>
  new HttpError(400, airtelEnvelope('400', message, resultCode));

export function checkApiCall(state: SimulatorState, req: IncomingMessage): void {
  if (!bearerValid(state, req, 'airtel')) {
    throw new HttpError(
      401,
      airtelEnvelope('401', 'Access token is missing, invalid or expired', 'ESB000001'),
    );
  }
  if (header(req, 'x-country') !== creds.country || header(req, 'x-currency') !== creds.currency) {
    throw airtelBad(`X-Country must be ${creds.country} and X-Currency ${creds.currency}`);
  }
}
