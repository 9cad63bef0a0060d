// What every call to the simulator's Airtel Money API shares: Airtel's answer envelope, its 400,
// its refusal of a refund, and the checks of the bearer token and the country and currency headers.
import type { IncomingMessage } from 'node:http';
import { header, HttpError } from '../../simulator/sim-http.ts';
import type { createRefund, SimRefund } from '../../simulator/sim-refunds.ts';
import { bearerValid, type SimulatorState } from '../../simulator/sim-state.ts';
import { AIRTEL_SIM_CREDENTIALS as creds } from './sim-credentials.ts';

export const airtelEnvelope = (code: string, message: string, resultCode: string, extra: object = {}) => ({
  data: {},
  status: { code, message, result_code: resultCode, success: false, ...extra },
});
export const airtelBad = (message: string, resultCode = 'ESB000008') =>
  new HttpError(400, airtelEnvelope('400', message, resultCode));

/**
 * Airtel's answer to a refund or disbursement it will not create: a reused id is a duplicate;
 * nothing left to return is refused in the call's own words and response code.
 */
export function refundRefusal(
  why: Exclude<ReturnType<typeof createRefund>, SimRefund>,
  refused: { message: string; responseCode: string },
) {
  return why === 'duplicate'
    ? airtelEnvelope('200', 'Duplicate transaction id', 'ESB000041')
    : airtelEnvelope('200', refused.message, 'ESB000014', { response_code: refused.responseCode });
}

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
