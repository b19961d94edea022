/**
 * What the signer's pages, the ID app and the outbox page say, in English and
 * Arabic. A page is Arabic (right to left) when the envelope's `locale` is
 * `ar` and English otherwise; the signer can switch. Values (names, titles)
 * are put in by the caller, escaped there. The outbox's messages have their
 * own words (outbox-words.ts).
 */
import type { Language } from '../documents/humanise.js';
import { html, type Markup } from '../../core/web/html.js';

export type { Language } from '../documents/humanise.js';
export { methodName } from '../documents/humanise.js';

export const pageLanguage = (locale: unknown): Language => (locale === 'ar' ? 'ar' : 'en');

/** A language asked for (`?lang=`), or the envelope's. */
export const chosenLanguage = (asked: string | null, locale: unknown): Language =>
  asked === 'ar' || asked === 'en' ? asked : pageLanguage(locale);

/**
 * The text a table of STRINGS holds for `name` (a status, an outcome, a refusal), or undefined:
 * own entries only, so a name such as `constructor` is never answered by the object's prototype.
 */
export const textFor = (table: Readonly<Record<string, string>>, name: string): string | undefined =>
  Object.hasOwn(table, name) ? table[name] : undefined;

/**
 * A value from the envelope inside a sentence of the other script (a Latin name in an Arabic
 * sentence, a phone number in either): isolated, so the sentence's direction does not reorder it.
 */
const b = (value: string): Markup => html`<bdi>${value}</bdi>`;

/**
 * A sentence of text and isolated values. Not a tagged template: the bundle must be Latin-1, and
 * a tagged template's Arabic cannot be written as escapes (its raw text is kept as written).
 */
const sentence = (...parts: (string | number | Markup)[]): Markup => html`${parts}`;

const EN = {
  language: 'Language',
  otherLanguage: 'العربية',
  sandboxBanner: 'Sandbox: a test page with no legal effect.',
  signerOf: (n: number, total: number) => `Signer ${n} of ${total}`,
  stepOf: (n: number, total: number) => `Step ${n} of ${total}`,
  yourSteps: 'Your steps',
  stepNames: { verify: 'Verify your identity', signature: 'Your signature', sign: 'Sign' } as Record<
    string,
    string
  >,
  goToStep: (n: number, total: number, name: string) => `Go to step ${n} of ${total}: ${name}`,
  goToOutcome: 'Go to where this envelope stands',
  document: 'The document',
  documentIn: (language: string) =>
    `You are reading the document in English; the signed copy is in ${language}, the envelope's language.`,
  languageNames: { en: 'English', ar: 'Arabic' } as Record<string, string>,
  yourPlace: 'You sign here',
  youSignedHere: 'Your signature',
  // The verification step.
  verifyWith: (method: string) => `Before you sign, confirm who you are with ${method}.`,
  verifyButton: (method: string) => `Verify with ${method}`,
  attemptsLeft: (n: number) => (n === 1 ? 'Last attempt.' : `${n} attempts left.`),
  validUntil: (time: string, span: string) => `Valid until ${time} (${span}).`,
  appNumber: (method: string) => `Open the ${method} app and choose this number:`,
  appLink: (method: string) => `Open ${method} (sandbox)`,
  appWaiting: 'Waiting for your answer in the app. This page moves on by itself once you have answered.',
  checkAgain: 'I have answered: continue',
  newNumber: 'Show a new number',
  codeSent: (channel: string, to: string): Markup =>
    sentence(`We sent a six-digit code by `, channel, ` to `, b(to), `.`),
  codeLabel: 'The code',
  codeButton: 'Check the code',
  newCode: 'Send a new code',
  wrongNumber: 'That was not the number shown here.',
  wrongCode: 'That code is not the one we sent.',
  expiredRequest: 'Your answer did not come in time.',
  tryAgain: 'Try again with a new number',
  noMoreRequests: 'No more new codes or numbers can be sent for this envelope: ask its sender.',
  // The signature step.
  signatureIntro:
    'Type your name, or draw your signature. You see it again before you sign; it is placed on the document at your place.',
  signatureHow: 'How to sign',
  typeIt: 'Type',
  drawIt: 'Draw',
  typedLabel: 'Your name, as your signature',
  padLabel: 'Signature pad',
  padHelp:
    'Draw your signature with a mouse, a pen or a finger. With a keyboard, choose Type and type your name.',
  clearPad: 'Clear',
  adoptButton: 'Use this signature',
  // The signing step.
  signatureShown: 'Your signature, as it will appear on the document:',
  changeSignature: 'Change your signature',
  consent: 'I have read the document and agree to sign it electronically with this signature.',
  signButton: 'Sign the document',
  // Declining: a secondary action.
  declineHeading: 'Decline to sign',
  declineIntro:
    'If you do not agree, you can decline. The envelope then stops for everyone, and the sender sees your reason.',
  declineReason: 'Reason for declining',
  declineButton: 'Decline',
  // Where the envelope stands.
  outcomes: {
    signedTitle: 'You have signed',
    signedText: (signed: number, total: number) =>
      `Thank you. ${signed} of ${total} signers have signed. Everyone receives the completed copy once all have signed.`,
    signedNext: (name: string): Markup => sentence(b(name), ` signs next.`),
    ownCopy: 'Download your copy (PDF)',
    completedTitle: 'Everyone has signed',
    completedText:
      'The envelope is complete. The signed copy carries every signature and a certificate of completion, sealed by the service.',
    completedCopy: 'Download the signed copy (PDF)',
    declinedTitle: 'Declined',
    youDeclined: 'You declined to sign. The envelope has stopped, and its sender has been told.',
    yourReason: 'Your reason',
    otherDeclined: (name: string): Markup =>
      sentence(b(name), ` declined to sign, so the envelope has stopped.`),
    nothingMore: 'There is nothing more to do.',
    failedTitle: 'Identity check failed',
    youFailed: (attempts: number) =>
      `Your identity could not be confirmed after ${attempts} attempts, so the envelope has stopped.`,
    otherFailed: (name: string): Markup =>
      sentence(`The identity check of `, b(name), ` failed, so the envelope has stopped.`),
    askSender: 'Ask the sender to send the envelope again.',
    voidedTitle: 'Cancelled by the sender',
    voidedText: 'The sender cancelled (voided) this envelope. There is nothing to sign.',
    voidReason: "The sender's reason",
    expiredTitle: 'Expired',
    expiredText: (day: string) => `This envelope expired on ${day}, before everyone had signed.`,
    waitingTitle: 'Not your turn yet',
    waitingFor: (name: string, n: number): Markup =>
      sentence(
        b(name),
        ` (signer `,
        n,
        `) signs first. This page lets you sign when it is your turn, and you will get a message then.`,
      ),
    notYet: 'Your invitation is on its way. Reload this page in a moment.',
    robotTitle: 'Signed by the sandbox',
    robot:
      'This sandbox runs the automatic journey: its signers sign by themselves. Start it with --journey manual to sign here.',
  },
  refusals: {
    not_now: 'That step is not open now; the page shows where the envelope stands.',
    consent_required: 'Tick the box to agree before signing.',
    reason_required: 'Write a reason for declining.',
    no_request: 'That code or number is no longer open: use the newest one.',
    bad_answer: 'Type the six-digit code you were sent.',
    too_many_requests: 'No more new codes or numbers can be sent for this envelope: ask its sender.',
    signature_required: 'Choose your signature first.',
    signature_empty: 'Type your name, or draw your signature, first.',
    signature_too_long: 'That signature is too long: use at most 80 characters, or a shorter drawing.',
    signature_unreadable: 'That signature could not be read: type your name instead.',
    csrf: 'This form could not be checked: it is out of date, or it was not sent from this page. Nothing was done. Reload this page (the link you were sent) and try again.',
  } as Record<string, string>,
  // The ID app.
  idTitle: (method: string) => `${method} (sandbox)`,
  idAsk: (name: string, title: string): Markup =>
    sentence(b(name), `, confirm that you are signing "`, b(title), `".`),
  idChoose: 'Choose the number shown on the signing page.',
  idChoices: 'Numbers',
  idVerified: 'Done: your identity is verified.',
  idWrong: 'That was not the number shown on the signing page.',
  idWrongRetry: (left: number) =>
    `${left === 1 ? 'One attempt is left' : `${left} attempts are left`}: return to the signing page for a new number.`,
  idFailed: 'That was the last attempt: the check failed.',
  idExpired: 'This request has expired.',
  idReplaced: 'A newer number was shown on the signing page: use that one.',
  returnToSigning: 'Return to the signing page',
  notFound: 'This link is not valid.',
  // The outbox.
  outboxTitle: 'Sandbox outbox',
  outboxEmpty: 'No messages yet.',
  outboxIntro: 'Every message the service would have sent, newest first, as a mail catcher shows them.',
  outboxFields: {
    sent: 'Sent',
    channel: 'Sent by',
    from: 'From',
    to: 'To',
    expires: 'Expires',
    envelope: 'Envelope',
  },
  outboxSender: (key: string): Markup => sentence(`sign-cli sandbox, for the API key "`, b(key), `"`),
  outboxOpen: {
    invitation: 'Review and sign',
    reminder: 'Review and sign',
    id_request: 'Open the ID app',
    completed: 'Open the signed copy',
  } as Record<string, string>,
};

export type PageStrings = typeof EN;

const AR: PageStrings = {
  language: 'اللغة',
  otherLanguage: 'English',
  sandboxBanner: 'بيئة تجريبية: صفحة اختبار ليس لها أثر قانوني.',
  signerOf: (n, total) => `الموقّع ${n} من ${total}`,
  stepOf: (n, total) => `الخطوة ${n} من ${total}`,
  yourSteps: 'خطواتك',
  stepNames: { verify: 'تحقق من هويتك', signature: 'توقيعك', sign: 'التوقيع' },
  goToStep: (n, total, name) => `انتقل إلى الخطوة ${n} من ${total}: ${name}`,
  goToOutcome: 'انتقل إلى حالة المظروف',
  document: 'المستند',
  documentIn: (language) => `تقرأ المستند بالعربية؛ النسخة الموقّعة باللغة ${language}، لغة المظروف.`,
  languageNames: { en: 'الإنجليزية', ar: 'العربية' },
  yourPlace: 'توقّع هنا',
  youSignedHere: 'توقيعك',
  verifyWith: (method) => `قبل التوقيع، أكّد هويتك عبر ${method}.`,
  verifyButton: (method) => `التحقق عبر ${method}`,
  attemptsLeft: (n) => (n === 1 ? 'هذه آخر محاولة.' : n === 2 ? 'بقيت محاولتان.' : `بقيت ${n} محاولات.`),
  validUntil: (time, span) => `صالح حتى ${time} (${span}).`,
  appNumber: (method) => `افتح تطبيق ${method} واختر هذا الرقم:`,
  appLink: (method) => `افتح ${method} (تجريبي)`,
  appWaiting: 'بانتظار إجابتك في التطبيق. تنتقل هذه الصفحة وحدها بعد أن تجيب.',
  checkAgain: 'أجبت: متابعة',
  newNumber: 'اعرض رقماً جديداً',
  codeSent: (channel, to) => sentence(`أرسلنا رمزاً من ستة أرقام عبر `, channel, ` إلى `, b(to), `.`),
  codeLabel: 'الرمز',
  codeButton: 'تحقق من الرمز',
  newCode: 'أرسل رمزاً جديداً',
  wrongNumber: 'لم يكن هذا الرقم الظاهر هنا.',
  wrongCode: 'هذا الرمز ليس الرمز الذي أرسلناه.',
  expiredRequest: 'لم تصل إجابتك في الوقت المحدد.',
  tryAgain: 'حاول مجدداً برقم جديد',
  noMoreRequests: 'لا يمكن إرسال رموز أو أرقام جديدة لهذا المظروف: تواصل مع المرسل.',
  signatureIntro: 'اكتب اسمك أو ارسم توقيعك. ستراه مرة أخرى قبل أن توقّع، ويوضع على المستند في مكانك.',
  signatureHow: 'طريقة التوقيع',
  typeIt: 'كتابة',
  drawIt: 'رسم',
  typedLabel: 'اسمك كما يظهر في توقيعك',
  padLabel: 'لوحة التوقيع',
  padHelp: 'ارسم توقيعك بالفأرة أو بالقلم أو بإصبعك. باستخدام لوحة المفاتيح، اختر «كتابة» واكتب اسمك.',
  clearPad: 'مسح',
  adoptButton: 'اعتمد هذا التوقيع',
  signatureShown: 'توقيعك كما سيظهر على المستند:',
  changeSignature: 'غيّر توقيعك',
  consent: 'قرأت المستند وأوافق على توقيعه إلكترونياً بهذا التوقيع.',
  signButton: 'وقّع المستند',
  declineHeading: 'رفض التوقيع',
  declineIntro: 'إن لم توافق، يمكنك الرفض. عندها يتوقف المظروف للجميع، ويطّلع المرسل على سببك.',
  declineReason: 'سبب الرفض',
  declineButton: 'رفض',
  outcomes: {
    signedTitle: 'لقد وقّعت',
    signedText: (signed, total) =>
      `شكراً لك. وقّع ${signed} من ${total} من الموقّعين. يتلقى الجميع النسخة المكتملة بعد أن يوقّع الكل.`,
    signedNext: (name) => sentence(`يوقّع `, b(name), ` بعدك.`),
    ownCopy: 'نزّل نسختك (PDF)',
    completedTitle: 'وقّع الجميع',
    completedText: 'اكتمل المظروف. تحمل النسخة الموقّعة كل التوقيعات وشهادة إتمام، مختومة من الخدمة.',
    completedCopy: 'نزّل النسخة الموقّعة (PDF)',
    declinedTitle: 'مرفوض',
    youDeclined: 'رفضت التوقيع. توقف المظروف وأُبلغ مرسله.',
    yourReason: 'سببك',
    otherDeclined: (name) => sentence(`رفض `, b(name), ` التوقيع، فتوقف المظروف.`),
    nothingMore: 'لا شيء آخر عليك فعله.',
    failedTitle: 'فشل التحقق من الهوية',
    youFailed: (attempts) => `تعذّر تأكيد هويتك بعد ${attempts} محاولات، فتوقف المظروف.`,
    otherFailed: (name) => sentence(`فشل التحقق من هوية `, b(name), `، فتوقف المظروف.`),
    askSender: 'اطلب من المرسل إرسال المظروف مرة أخرى.',
    voidedTitle: 'ألغاه المرسل',
    voidedText: 'ألغى المرسل هذا المظروف. لا يوجد ما توقّعه.',
    voidReason: 'سبب المرسل',
    expiredTitle: 'انتهت الصلاحية',
    expiredText: (day) => `انتهت صلاحية هذا المظروف في ${day} قبل أن يوقّع الجميع.`,
    waitingTitle: 'لم يحن دورك بعد',
    waitingFor: (name, n) =>
      sentence(
        `يوقّع `,
        b(name),
        ` (الموقّع `,
        n,
        `) أولاً. ستتمكن من التوقيع من هذه الصفحة عندما يحين دورك، وستصلك رسالة عندها.`,
      ),
    notYet: 'دعوتك في الطريق. أعد تحميل هذه الصفحة بعد لحظات.',
    robotTitle: 'توقّعه البيئة التجريبية',
    robot:
      'تعمل هذه البيئة التجريبية بالمسار الآلي: يوقّع الموقّعون من تلقاء أنفسهم. شغّلها مع ‎--journey manual للتوقيع هنا.',
  },
  refusals: {
    not_now: 'هذه الخطوة غير متاحة الآن؛ تعرض الصفحة حالة المظروف.',
    consent_required: 'ضع علامة في المربع للموافقة قبل التوقيع.',
    reason_required: 'اكتب سبب الرفض.',
    no_request: 'هذا الرمز أو الرقم لم يعد مفتوحاً: استخدم الأحدث.',
    bad_answer: 'اكتب الرمز المكوّن من ستة أرقام الذي أُرسل إليك.',
    too_many_requests: 'لا يمكن إرسال رموز أو أرقام جديدة لهذا المظروف: تواصل مع المرسل.',
    signature_required: 'اختر توقيعك أولاً.',
    signature_empty: 'اكتب اسمك أو ارسم توقيعك أولاً.',
    signature_too_long: 'هذا التوقيع طويل جداً: استخدم 80 حرفاً على الأكثر، أو رسماً أقصر.',
    signature_unreadable: 'تعذّرت قراءة هذا التوقيع: اكتب اسمك بدلاً منه.',
    csrf: 'تعذّر التحقق من هذا النموذج: إما أنه قديم وإما أنه لم يُرسَل من هذه الصفحة. لم يُنفَّذ شيء. أعد تحميل هذه الصفحة (الرابط الذي أُرسل إليك) وحاول مرة أخرى.',
  },
  idTitle: (method) => `${method} (تجريبي)`,
  idAsk: (name, title) => sentence(b(name), `، أكّد أنك توقّع «`, b(title), `».`),
  idChoose: 'اختر الرقم الظاهر في صفحة التوقيع.',
  idChoices: 'الأرقام',
  idVerified: 'تم: تحققنا من هويتك.',
  idWrong: 'لم يكن هذا الرقم الظاهر في صفحة التوقيع.',
  idWrongRetry: (left) =>
    `${left === 1 ? 'بقيت محاولة واحدة' : left === 2 ? 'بقيت محاولتان' : `بقيت ${left} محاولات`}: عد إلى صفحة التوقيع لرقم جديد.`,
  idFailed: 'كانت تلك آخر محاولة: فشل التحقق.',
  idExpired: 'انتهت صلاحية هذا الطلب.',
  idReplaced: 'ظهر رقم أحدث في صفحة التوقيع: استخدمه.',
  returnToSigning: 'عد إلى صفحة التوقيع',
  notFound: 'هذا الرابط غير صالح.',
  outboxTitle: 'صندوق الصادر التجريبي',
  outboxEmpty: 'لا توجد رسائل بعد.',
  outboxIntro: 'كل رسالة كانت الخدمة سترسلها، الأحدث أولاً، كما يعرضها ملتقط البريد.',
  outboxFields: {
    sent: 'أُرسلت',
    channel: 'عبر',
    from: 'من',
    to: 'إلى',
    expires: 'تنتهي',
    envelope: 'المظروف',
  },
  outboxSender: (key) => sentence(`بيئة sign-cli التجريبية، لمفتاح API «`, b(key), `»`),
  outboxOpen: {
    invitation: 'راجع ووقّع',
    reminder: 'راجع ووقّع',
    id_request: 'افتح تطبيق الهوية',
    completed: 'افتح النسخة الموقّعة',
  },
};

export const STRINGS: Record<Language, PageStrings> = { en: EN, ar: AR };
