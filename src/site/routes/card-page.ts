// Where the buyer goes once a card payment has started: a top-level checkout to the wait screen
// with ?card=1, which goes on to the provider's card page at once (views/card-wait.ts: the form's
// CSP forbids redirecting its POST to another origin); an embedded one to the wait screen, whose
// link opens the card page in a new tab (the provider refuses to be framed; the frame keeps
// watching the order).
import type { FastifyReply } from 'fastify';
import { checkoutPath } from '../views/page-parts.ts';
import { seeOther, type Loaded } from './page-replies.ts';

export function sendToCardPage(reply: FastifyReply, loaded: Loaded) {
  const onward = loaded.session.uiMode === 'embedded' ? '' : '?card=1';
  return seeOther(reply, checkoutPath(loaded.session.id, `/pay${onward}`));
}
