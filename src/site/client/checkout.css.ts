// The checkout pages' one stylesheet, served from the SITE host as /assets/checkout.<hash>.css.
// Mobile first (readable at 320 px), system fonts, colours chosen for at least 4.5:1 contrast.
import { PAYMENT_METHOD_CATALOGUE } from '../../payments/index.ts';

/** Each payment method's badge in its brand colours (.brand-momo, .brand-airtel). */
const BRAND_CSS = PAYMENT_METHOD_CATALOGUE.map(
  (m) => `.brand-${m.key}{background:${m.brand.background};color:${m.brand.text}}`,
).join('\n');

export const CHECKOUT_CSS = `
*,*::before,*::after{box-sizing:border-box}
[hidden]{display:none!important}
.vh{position:absolute!important;width:1px;height:1px;margin:-1px;padding:0;overflow:hidden;clip:rect(0 0 0 0);white-space:nowrap;border:0}
html{-webkit-text-size-adjust:100%;text-size-adjust:100%}
body{margin:0;font:1rem/1.5 system-ui,-apple-system,"Segoe UI",Roboto,Ubuntu,sans-serif;color:#1a1a1a;background:#f4f4f2}
.page{position:relative;max-width:40rem;margin:0 auto;background:#fff;min-height:100vh}
.topbar{display:flex;justify-content:flex-end;align-items:center;gap:.75rem;padding:0 1rem;min-height:2.75rem;font-size:.9375rem}
.topbar a,.topbar button.link{padding:.6rem 0}
.close-x{position:absolute;top:0;right:0;z-index:2;width:44px;height:44px;min-height:0;padding:0;border:0;background:none;color:#1a1a1a;font:1.75rem/1 sans-serif}
.close-x:not([hidden])~.topbar{padding-right:3.25rem}
.close-x:not([hidden])+.event,.close-x:not([hidden])+main{padding-right:3rem}
.event{padding:1rem;border-bottom:1px solid #d6d6d6}
.cover{display:block;width:100%;height:auto;aspect-ratio:16/7;object-fit:cover;background:#e5e5e5;border-radius:.5rem;margin-bottom:.75rem}
h1{font-size:1.4rem;line-height:1.25;margin:0 0 .25rem}
h2{font-size:1.2rem;line-height:1.3;margin:0 0 .75rem}
h3{font-size:1.05rem;margin:0 0 .5rem}
p{margin:0 0 .75rem}
.meta{color:#4a4a4a;margin:0}
main{padding:1rem}
.muted,.hint{color:#4a4a4a;font-size:.925rem}
.hint{margin:.1rem 0 .35rem}
.step-count:empty{display:none}
.step-count{display:block;color:#4a4a4a;font-size:.875rem;font-weight:400}
fieldset{border:0;margin:0 0 1rem;padding:0;min-width:0}
legend{font-weight:600;padding:0;margin-bottom:.5rem}
.field{margin:0 0 1rem}
label{display:block;font-weight:600;margin-bottom:.2rem}
input[type=text],input[type=email],input[type=tel],input[type=date],input[type=number],input:not([type]),select{display:block;width:100%;max-width:100%;font:inherit;padding:.6rem .65rem;border:2px solid #5c5c5c;border-radius:.35rem;background:#fff;color:#1a1a1a;min-height:2.9rem}
select.qty{width:auto;min-width:5rem}
input:focus,select:focus,button:focus,a:focus,[tabindex]:focus{outline:3px solid #1d4ed8;outline-offset:2px}
h2[tabindex="-1"]:focus,h1[tabindex="-1"]:focus{outline:none}
.field.invalid input,.field.invalid select,[aria-invalid=true]{border-color:#b3261e}
.error{color:#b3261e;font-weight:600;margin:.1rem 0 .35rem}
.check{display:flex;gap:.6rem;align-items:flex-start;margin:.4rem 0}
.check input{width:1.4rem;height:1.4rem;margin:.1rem 0 0;flex:none}
.check label{font-weight:400;margin:0}
.check.disabled label{color:#4a4a4a}
.ticket{border:1px solid #c4c4c4;border-radius:.5rem;padding:.75rem;margin:0 0 .75rem;display:flex;flex-wrap:wrap;gap:.75rem;justify-content:space-between;align-items:flex-start}
.ticket .info{flex:1 1 10rem;min-width:0}
.ticket .qty-box{flex:none;text-align:right}
.ticket .qty-box label{font-weight:400;font-size:.875rem}
.ticket .name{font-weight:700;margin:0}
.price{margin:.25rem 0 0}
.price .muted{display:block}
.price strong{font-size:1.05rem}
.low{color:#8a4b00;font-weight:600}
.soldout{color:#b3261e;font-weight:600}
.participant{border:1px solid #c4c4c4;border-radius:.5rem;padding:.75rem;margin:0 0 1rem}
.participant legend{float:left;width:100%;margin-bottom:.75rem}
.participant legend+*{clear:both}
.waiver-text{border-left:4px solid #c4c4c4;padding:.25rem .75rem;margin:0 0 .5rem}
.actions{display:flex;flex-wrap:wrap;gap:.75rem;align-items:center;margin:1.25rem 0 .5rem}
button,.button{display:inline-block;font:inherit;font-weight:600;padding:.7rem 1.2rem;min-height:2.9rem;border-radius:.4rem;border:2px solid #1d4ed8;background:#fff;color:#1d4ed8;cursor:pointer;text-decoration:none;text-align:center}
button.primary,.button.primary{background:#1d4ed8;color:#fff}
button.primary{flex:1 1 12rem}
button[disabled],button[aria-disabled=true]{opacity:.7;cursor:progress}
button.link{border:0;background:none;color:#1d4ed8;text-decoration:underline;padding:.5rem 0;min-height:0;font-weight:400;overflow-wrap:anywhere}
.cancel-form{margin:0 1rem 1rem}
.error-summary{border:3px solid #b3261e;border-radius:.4rem;padding:.75rem 1rem;margin:0 0 1.25rem}
.error-summary h2{font-size:1.1rem;margin-bottom:.4rem}
.error-summary ul{margin:0;padding-left:1.1rem}
.error-summary a{color:#b3261e;font-weight:600}
.notice{border-left:5px solid #1d4ed8;background:#eef2fb;padding:.6rem .8rem;margin:0 0 1rem}
.notice.bad{border-color:#b3261e;background:#fbeeed}
.notice.good{border-color:#146c2e;background:#ecf6ee}
table.summary{width:100%;border-collapse:collapse;margin:0 0 1rem}
.summary caption{text-align:left}
.summary th,.summary td{text-align:left;padding:.4rem 0;border-bottom:1px solid #d6d6d6;vertical-align:top}
.summary td.num,.summary th.num{text-align:right;white-space:nowrap;padding-left:.5rem}
.summary tr.total th,.summary tr.total td{font-weight:700;font-size:1.1rem;border-bottom:0}
dl.facts{margin:0 0 1rem}
dl.facts dt{font-weight:600}
dl.facts dd{margin:0 0 .5rem}
.code{font:700 1.6rem/1.2 ui-monospace,Menlo,Consolas,monospace;letter-spacing:.12em}
.spinner{width:2.5rem;height:2.5rem;border:4px solid #c4c4c4;border-top-color:#1d4ed8;border-radius:50%;animation:spin 1s linear infinite;margin:0 0 .75rem}
@keyframes spin{to{transform:rotate(360deg)}}
@media (prefers-reduced-motion:reduce){.spinner{animation:none;border-top-color:#c4c4c4}}
ul.regs{padding-left:1.1rem}
.ticket-line{display:block;margin:.1rem 0 .6rem}
.ticket-line a{display:inline-block;padding:.4rem 0;font-weight:600}
footer{padding:1rem;border-top:1px solid #d6d6d6;color:#4a4a4a;font-size:.875rem}
footer p{margin:0 0 .25rem}
a{color:#1d4ed8}
.compact .event{padding:.5rem 1rem}
.compact .cover,.compact .event .meta{display:none}
.compact h1{font-size:1.05rem;margin:0}
.bar{position:sticky;bottom:0;z-index:1;background:#fff;border-top:1px solid #d6d6d6;margin:1.25rem -1rem 0;padding:.5rem 1rem .6rem}
.bar-total{display:flex;flex-wrap:wrap;justify-content:space-between;align-items:baseline;gap:0 .5rem;margin:0 0 .4rem}
.bar-total strong{font-size:1.1rem}
.bar-buttons{display:flex;gap:.5rem}
.bar-buttons .primary{flex:1 1 auto}
.bar-buttons .back{order:-1;flex:none;padding-left:.9rem;padding-right:.9rem}
.to-fill{color:#8a4b00;font-weight:600;font-size:.925rem}
.bar-buttons .primary.not-ready{background:#fff;color:#1d4ed8;border-style:dashed}
.optional-mark{font-weight:400}
.self-toggle{float:left;width:1.4rem;height:1.4rem;margin:.1rem .6rem 0 0}
.self-label{font-weight:400;margin:0 0 .2rem}
.self-hint{clear:both}
.self-toggle:not(:checked)~.self-hint{display:none}
.self-toggle:checked~[data-participants]>.participant:first-child .name-field{display:none}
.tiles .check:not(.disabled){border:2px solid #8a8a8a;border-radius:.5rem;padding:.4rem .6rem;align-items:center;margin:0 0 .5rem}
.tiles .check:not(.disabled) label{flex:1;display:flex;align-items:center;gap:.5rem;min-height:2rem;font-weight:600}
.tiles .check:has(input:checked),.tiles .check.chosen{border-color:#1d4ed8;background:#eef2fb}
.tiles .check.chosen{gap:.5rem;min-height:2.75rem;font-weight:600}
p.legend{font-weight:600;margin:0 0 .5rem}
.tiles .detail{display:block;font-weight:400}
.brand{flex:none;min-width:3rem;padding:.1rem .3rem;border-radius:.3rem;font-size:.85rem;font-weight:800;text-align:center}
${BRAND_CSS}
details{margin:0 0 1rem}
summary{cursor:pointer;font-weight:600;padding:.5rem 0;min-height:2.75rem}
.order-summary{border:1px solid #c4c4c4;border-radius:.5rem;padding:0 .75rem}
.close-ask{max-width:min(26rem,100% - 2rem);border:0;border-radius:.75rem;padding:1.5rem;box-shadow:0 24px 64px rgba(0,0,0,.35)}
.close-ask button{flex:1 1 10rem}
@media (min-width:40rem){body{padding:1rem 0}.page{border-radius:.75rem;min-height:0;box-shadow:0 1px 4px rgba(0,0,0,.15)}h1{font-size:1.6rem}}
.prompt-time strong{font-size:1.5rem}
.cancel-panel{border:3px solid #b3261e;border-radius:.4rem;padding:.75rem 1rem;margin:0 0 1rem}
.unavailable h1{margin-bottom:.75rem}
.unavailable .actions>form{flex:1 1 12rem;display:flex}
.unavailable .actions .primary{flex:1 1 12rem}
.unavailable-note h2{font-size:1.1rem}
.unavailable-note>:last-child{margin-bottom:0}
`;
