// The pages around the form in Swahili, message for message as status.en.ts: plain words of East
// African mobile money (ombi la malipo, namba, Thibitisha, Ghairi); brand names and codes as they are.
import type { statusEn } from './status.en.ts';

export const statusSw: typeof statusEn = {
  seconds: (n) => `sekunde ${n}`,
  outcomes: {
    payment_declined: {
      title: 'Malipo yamekataliwa',
      text: 'Malipo hayakukubaliwa kwenye simu. Unaweza kujaribu tena, au kulipa kwa namba au mtandao mwingine.',
    },
    payment_timeout: {
      title: 'Muda wa ombi la malipo umekwisha',
      text: 'Hakuna aliyekubali ombi kwa wakati. Hakikisha simu imewashwa na ina mtandao, kisha jaribu tena.',
    },
    insufficient_funds: {
      title: 'Salio halitoshi',
      text: 'Salio la pesa kwenye simu ni dogo mno kwa malipo haya. Ongeza salio kisha jaribu tena, au lipa kutoka namba nyingine.',
    },
    invalid_phone_number: {
      title: 'Namba hiyo haiwezi kupokea maombi ya malipo',
      text: 'Namba hii haijasajiliwa kwa pesa kwa simu kwenye mtandao huu. Iangalie, au tumia namba au mtandao mwingine.',
    },
    provider_error: {
      title: 'Huduma ya pesa kwa simu imepata tatizo',
      text: 'Mtandao haukuweza kupokea malipo sasa hivi. Jaribu tena baada ya muda mfupi, au tumia mtandao mwingine.',
    },
    hold_expired: {
      title: 'Muda umekwisha',
      text: 'Tiketi zako zimeachiliwa kwa sababu malipo hayakukamilika kwa wakati. Unaweza kuanza upya.',
    },
  },
  didNotGoThrough: 'Malipo hayakufanikiwa. Unaweza kujaribu tena.',
  startErrors: {
    amount_below_minimum:
      'Kiasi hiki ni chini ya kiwango cha chini cha pesa kwa simu, kwa hiyo hakiwezi kulipwa kwa simu.',
    amount_too_large:
      'Kiasi hiki ni zaidi ya kile mtandao huu wa pesa kwa simu unapokea kwa malipo moja. Chagua tiketi chache, au jaribu mtandao mwingine.',
    order_not_payable: 'Oda hii haiwezi kulipiwa tena.',
    validation_failed: 'Malipo hayakuweza kuanza: angalia namba na mtandao.',
    internal_error: 'Ombi la malipo halikuweza kutumwa. Jaribu tena.',
  },
  approveTitle: 'Kubali malipo kwenye simu yako',
  payAnotherWayTitle: 'Lipa kwa namba au mtandao mwingine',
  payAnotherNumberTitle: 'Lipa kwa namba nyingine',
  payTitle: 'Lipia oda yako',
  promptSent: 'Tumetuma ombi la malipo la {amount} kwa {target}. Weka PIN yako kwenye simu ili kukubali.',
  promptTarget: 'namba ya {network} {number}',
  mobileMoney: 'pesa kwa simu',
  timeToApprove: 'Muda uliobaki wa kukubali: {time}',
  noPrompt:
    'Ombi halijafika? Fungua menyu ya pesa kwa simu ({menus}) na utafute malipo yanayosubiri idhini. Ukurasa huu hujisasisha wenyewe.',
  resendPrompt: 'Tuma ombi tena',
  sentAgainAt: (time) => `Limetumwa tena saa ${time}.`,
  useAnother: 'Tumia namba au mtandao mwingine',
  useAnotherNumber: 'Tumia namba nyingine',
  checkStatus: 'Angalia hali ya malipo',
  heldFor: 'Tiketi zako zimeshikiliwa kwa {time} zaidi.',
  promptMayStillBeOn:
    'Ombi lililotumwa kwa {target} huenda bado liko kwenye simu hiyo. Kubali ombi moja tu: ukikubali hilo, oda yako imelipwa na huhitaji kutuma jingine.',
  orderTotal: 'Jumla ya oda: {amount}',
  changeOrder: 'Badilisha oda',
  tryAgain: 'Jaribu tena',
  network: 'Mtandao',
  mobileMoneyNumber: 'Namba ya pesa kwa simu',
  retryPhoneHint: 'Namba ileile, au nyingine: ombi la malipo litaenda kwa simu hii.',
  sending: 'Inatuma…',
  sendPrompt: 'Tuma ombi la malipo',
  cancelledTitle: 'Oda hii imeghairiwa',
  nothingCharged: 'Hakuna pesa iliyokatwa kwa ajili yake.',
  releasedAfterFailures:
    'Baada ya malipo {count} kushindikana, nafasi zako zimeachiliwa kwa wakimbiaji wengine. Hakuna pesa iliyokatwa. Unaweza kuanza upya, kwa namba au mtandao mwingine.',
  startAgain: 'Anza upya',
  cancelWhilePrompt: 'Ghairi wakati ombi la malipo liko kwenye simu yako?',
  cancelWarning:
    'Ombi la malipo la {amount} liko kwenye {target}. Ukilikubali, bado utakatwa pesa na kusajiliwa kwa {event}.',
  cancelHowTo: 'Ili kuondoka bila kulipa, kataa ombi kwenye simu (au liache muda wake uishe), kisha ghairi.',
  keepWaiting: 'Endelea kusubiri',
  cancelAnyway: 'Ghairi hata hivyo',
  cancelPageTitle: (event) => `Ghairi malipo? – ${event}`,
  registered: 'Umesajiliwa',
  paymentReceived: 'Malipo ya {amount} yamepokelewa.',
  registrationConfirmed: 'Usajili wako umethibitishwa.',
  yourOrderCode: 'Namba ya oda yako',
  registrations: 'Usajili',
  registrationStatus: { pending: 'unasubiri', confirmed: 'umethibitishwa', cancelled: 'umeghairiwa' },
  whatNext: 'Kinachofuata',
  keepCode: 'Hifadhi namba ya oda yako: itaje kwa mwandalizi na wakati wa kuchukua vifaa vya mbio.',
  detailsByEmail: (organizer) => `${organizer} atakutumia maelezo ya mbio kwa barua pepe uliyotoa.`,
  detailsToYou: (organizer) => `${organizer} atakutumia maelezo ya mbio.`,
  writeTo: 'Maswali? Andika kwa {email} ukitaja namba ya oda yako.',
  continueTo: (partner) => `Endelea kwenye ${partner}`,
  done: 'Maliza',
  registeredTitle: (event) => `Umesajiliwa – ${event}`,
  close: 'Funga',
  returnTo: (partner) => `Rudi kwenye ${partner}`,
  expiredTitle: 'Muda wa malipo haya umekwisha',
  expiredText:
    'Viungo vya malipo hufanya kazi kwa saa 24. Ili kujisajili, anza upya kutoka tovuti uliyotoka.',
  closedTitle: 'Usajili umefungwa',
  closedText: (event) => `Usajili wa ${event} haujafunguliwa kwa sasa.`,
  cancelledCheckout: 'Malipo yameghairiwa',
  declineLeftPrompt:
    'Ikiwa ombi la malipo bado liko kwenye simu yako, likatae: ukilikubali bado utakatwa pesa na kusajiliwa.',
  nothingWasCharged: 'Hakuna pesa iliyokatwa.',
  youCanClose: 'Unaweza kufunga ukurasa huu.',
  notFoundTitle: 'Malipo hayajapatikana',
  notFoundText: 'Kiungo hiki cha malipo si sahihi. Angalia kiungo, au anza upya kutoka tovuti uliyotoka.',
  tooManyRequests: 'Maombi mengi mno',
  pleaseWait: (seconds) => `Tafadhali subiri sekunde ${seconds} kisha jaribu tena.`,
  aFew: 'chache',
  pageNotFound: 'Ukurasa haujapatikana',
  checkTheLink: 'Angalia kiungo, au anza upya kutoka tovuti uliyotoka.',
  notHandled: 'Ombi hilo halikuweza kushughulikiwa',
  goBack: 'Rudi nyuma kisha jaribu tena.',
  ourSide: 'Kuna hitilafu upande wetu',
  tryInAMoment: 'Tafadhali jaribu tena baada ya muda mfupi.',
  reference: (id) => `Namba ya kumbukumbu kwa msaada: ${id}`,
  unavailableTitle: 'Samahani, huduma ya malipo haipatikani kwa muda mfupi',
  unavailablePrompt: {
    nothing: 'Hakuna kilichotumwa kwenye simu yako.',
    none: 'Hakuna ombi la malipo lililotumwa kwenye simu yako, na hakuna pesa iliyokatwa.',
    noneNew:
      'Hakuna ombi jipya la malipo lililotumwa. Ikiwa ombi lililotumwa awali bado liko kwenye simu yako, unaweza kulikubali.',
    sent: 'Ombi la malipo limetumwa kwenye simu yako: likubali huko, kisha angalia hali ya malipo.',
    unknown:
      'Hatuwezi kujua kama ombi la malipo limetumwa kwenye simu yako. Angalia simu yako kabla ya kujaribu tena: ikiwa ombi lipo, likubali. Kujaribu tena hakutumi ombi la pili wakati moja linasubiri.',
    waiting:
      'Hatukuweza kuangalia malipo yako sasa hivi. Ikiwa ombi la malipo liko kwenye simu yako, bado unaweza kulikubali: ukurasa huu utaangalia tena wenyewe.',
  },
  answersKept: 'Ulichoandika kimehifadhiwa.',
  backToCheckout: 'Rudi kwenye malipo',
  card: {
    waitTitle: 'Lipa kwenye ukurasa wa kadi',
    waitText:
      'Andika kadi yako kwenye ukurasa salama wa kadi ili ulipe {amount}. Benki yako inaweza kukuomba uthibitishe kwa msimbo. Ukurasa huu unajisasisha wenyewe.',
    goToPage: 'Endelea kwenye ukurasa wa kadi',
    newTab: 'Endelea kwenye kichupo kipya',
    newTabText:
      'Ukurasa wa kadi unafunguka kwenye kichupo kipya. Ukishalipa huko, dirisha hili litaonyesha oda yako.',
    target: 'ukurasa wa kadi',
    payAnotherWay: 'Lipa kwa njia nyingine',
    pay: 'Lipa',
    cancelTitle: 'Ghairi wakati ukurasa wa kadi uko wazi?',
    cancelWarning:
      'Ukurasa wa kadi wa {amount} unaweza kuwa bado uko wazi. Ukilipa huko, utatozwa na kusajiliwa kwa {event}.',
    cancelHowTo: 'Ili kuondoka bila kulipa, funga ukurasa wa kadi bila kulipa, kisha ughairi.',
    closeTab: 'Unaweza kufunga kichupo hiki: malipo uliyotoka yanaonyesha oda yako pia.',
    outcomes: {
      payment_declined: {
        title: 'Kadi imekataliwa',
        text: 'Benki yako haikukubali malipo. Unaweza kujaribu tena, kutumia kadi nyingine, au kulipa kwa pesa kwa simu.',
      },
      insufficient_funds: {
        title: 'Hakuna pesa za kutosha kwenye kadi',
        text: 'Salio la kadi ni dogo kwa malipo haya. Jaribu kadi nyingine, au lipa kwa pesa kwa simu.',
      },
      payment_timeout: {
        title: 'Malipo ya kadi hayakukamilika',
        text: 'Ukurasa wa kadi haukukamilishwa kwa wakati. Unaweza kujaribu tena, au kulipa kwa pesa kwa simu.',
      },
      provider_error: {
        title: 'Huduma ya kadi ilikuwa na tatizo',
        text: 'Malipo ya kadi hayakuweza kupokelewa sasa hivi. Jaribu tena baada ya muda mfupi, au lipa kwa pesa kwa simu.',
      },
    },
  },
};
