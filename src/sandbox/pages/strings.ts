/**
 * What the signer's pages, the ID app and the outbox's messages say, in
 * English and Arabic. A page is Arabic (right to left) when the envelope's
 * `locale` is `ar` and English otherwise; the signer can switch. Values
 * (names, titles) are put in by the caller, escaped there.
 */
export type Language = 'en' | 'ar';

export const pageLanguage = (locale: unknown): Language => (locale === 'ar' ? 'ar' : 'en');

/** A language asked for (`?lang=`), or the envelope's. */
export const chosenLanguage = (asked: string | null, locale: unknown): Language =>
  asked === 'ar' || asked === 'en' ? asked : pageLanguage(locale);

// A Map: the method is the envelope's (any value `--accept` allows, `constructor` too), and an
// object literal would answer for its prototype's names.
const METHOD_NAMES: ReadonlyMap<string, { en: string; ar: string }> = new Map([
  ['uae_pass', { en: 'UAE PASS', ar: 'الهوية الرقمية الإماراتية (UAE PASS)' }],
  ['nafath', { en: 'Nafath', ar: 'نفاذ' }],
  ['sms_otp', { en: 'a code by SMS', ar: 'رمز عبر رسالة نصية' }],
  ['email_otp', { en: 'a code by e-mail', ar: 'رمز عبر البريد الإلكتروني' }],
]);

export const methodName = (method: string, lang: Language): string =>
  METHOD_NAMES.get(method)?.[lang] ?? method;

/**
 * The text a table of STRINGS holds for `name` (a status, an outcome, a refusal), or undefined:
 * own entries only, so a name such as `constructor` is never answered by the object's prototype.
 */
export const textFor = (table: Readonly<Record<string, string>>, name: string): string | undefined =>
  Object.hasOwn(table, name) ? table[name] : undefined;

export const STRINGS = {
  en: {
    language: 'Language',
    otherLanguage: 'العربية',
    sandboxBanner: 'Sandbox: a test page with no legal effect.',
    signer: 'Signer',
    document: 'The document',
    page: (n: number, total: number) => `Page ${n} of ${total}`,
    waitingFor: (name: string) =>
      `Waiting for ${name} to sign first. This page will let you sign when it is your turn.`,
    waiting: 'Your invitation is on its way. Reload this page in a moment.',
    robot:
      'This sandbox runs the automatic journey: its signers sign by themselves. Start it with --journey manual to sign here.',
    signed: 'You have signed. Thank you.',
    finished: {
      completed: 'This envelope was completed: everyone has signed.',
      declined: 'This envelope was declined.',
      voided: 'This envelope was voided by its sender.',
      expired: 'This envelope has expired.',
      failed: 'This envelope was stopped: an identity check failed.',
    } as Record<string, string>,
    downloadSigned: 'Download the signed copy (PDF)',
    verifyHeading: 'Verify your identity',
    verifyWith: (method: string) => `Verify your identity with ${method} before signing.`,
    verifyButton: 'Verify identity',
    appNumber: (method: string) => `Open the ${method} app and choose this number:`,
    appLink: 'Open the ID app (sandbox)',
    appWaiting: 'Waiting for your answer in the app.',
    checkAgain: 'I have answered: continue',
    codeSent: (method: string) => `We sent you ${method}. Type it here:`,
    codeLabel: 'Code',
    codeButton: 'Check the code',
    signHeading: 'Sign',
    consent: 'I have read the document and agree to sign it electronically.',
    signButton: 'Sign',
    declineHeading: 'Decline',
    declineReason: 'Reason for declining',
    declineButton: 'Decline',
    refusals: {
      not_now: 'That step is not open now; the page shows where the envelope stands.',
      consent_required: 'Tick the box to agree before signing.',
      reason_required: 'Write a reason for declining.',
      no_request: 'That identity check is no longer open.',
      bad_answer: 'Type the six-digit code you were sent.',
      csrf: 'This form could not be checked: it is out of date, or it was not sent from this page. Nothing was done. Reload this page (the link you were sent) and try again.',
    } as Record<string, string>,
    idTitle: (method: string) => `${method} (sandbox)`,
    idAsk: (name: string, title: string) => `${name}, confirm that you are signing "${title}".`,
    idChoose: 'Choose the number shown on the signing page.',
    idChoices: 'Numbers',
    idDone: {
      verified: 'Done: your identity is verified. Go back to the signing page.',
      wrong: 'That was not the number shown: the check failed.',
      expired: 'This request has expired.',
    } as Record<string, string>,
    notFound: 'This link is not valid.',
    outboxTitle: 'Sandbox outbox',
    outboxEmpty: 'No messages yet.',
    outboxIntro: 'Every message the service would have sent, newest first.',
  },
  ar: {
    language: 'اللغة',
    otherLanguage: 'English',
    sandboxBanner: 'بيئة تجريبية: صفحة اختبار ليس لها أثر قانوني.',
    signer: 'الموقِّع',
    document: 'المستند',
    page: (n: number, total: number) => `الصفحة ${n} من ${total}`,
    waitingFor: (name: string) =>
      `بانتظار توقيع ${name} أولاً. ستتمكن من التوقيع من هذه الصفحة عندما يحين دورك.`,
    waiting: 'دعوتك في الطريق. أعد تحميل هذه الصفحة بعد لحظات.',
    robot:
      'تعمل هذه البيئة التجريبية بالمسار الآلي: يوقّع الموقّعون من تلقاء أنفسهم. شغّلها مع ‎--journey manual للتوقيع هنا.',
    signed: 'لقد وقّعت. شكراً لك.',
    finished: {
      completed: 'اكتمل هذا المظروف: وقّع الجميع.',
      declined: 'رُفض هذا المظروف.',
      voided: 'ألغى المرسل هذا المظروف.',
      expired: 'انتهت صلاحية هذا المظروف.',
      failed: 'توقف هذا المظروف: فشل التحقق من الهوية.',
    } as Record<string, string>,
    downloadSigned: 'تنزيل النسخة الموقّعة (PDF)',
    verifyHeading: 'تحقق من هويتك',
    verifyWith: (method: string) => `تحقق من هويتك عبر ${method} قبل التوقيع.`,
    verifyButton: 'التحقق من الهوية',
    appNumber: (method: string) => `افتح تطبيق ${method} واختر هذا الرقم:`,
    appLink: 'افتح تطبيق الهوية (تجريبي)',
    appWaiting: 'بانتظار إجابتك في التطبيق.',
    checkAgain: 'أجبت: متابعة',
    codeSent: (method: string) => `أرسلنا إليك ${method}. اكتبه هنا:`,
    codeLabel: 'الرمز',
    codeButton: 'تحقق من الرمز',
    signHeading: 'التوقيع',
    consent: 'قرأت المستند وأوافق على توقيعه إلكترونياً.',
    signButton: 'توقيع',
    declineHeading: 'الرفض',
    declineReason: 'سبب الرفض',
    declineButton: 'رفض',
    refusals: {
      not_now: 'هذه الخطوة غير متاحة الآن؛ تعرض الصفحة حالة المظروف.',
      consent_required: 'ضع علامة في المربع للموافقة قبل التوقيع.',
      reason_required: 'اكتب سبب الرفض.',
      no_request: 'طلب التحقق هذا لم يعد مفتوحاً.',
      bad_answer: 'اكتب الرمز المكوّن من ستة أرقام الذي أُرسل إليك.',
      csrf: 'تعذّر التحقق من هذا النموذج: إما أنه قديم وإما أنه لم يُرسَل من هذه الصفحة. لم يُنفَّذ شيء. أعد تحميل هذه الصفحة (الرابط الذي أُرسل إليك) وحاول مرة أخرى.',
    } as Record<string, string>,
    idTitle: (method: string) => `${method} (تجريبي)`,
    idAsk: (name: string, title: string) => `${name}، أكّد أنك توقّع «${title}».`,
    idChoose: 'اختر الرقم الظاهر في صفحة التوقيع.',
    idChoices: 'الأرقام',
    idDone: {
      verified: 'تم التحقق من هويتك. عد إلى صفحة التوقيع.',
      wrong: 'ليس هذا الرقم الظاهر: فشل التحقق.',
      expired: 'انتهت صلاحية هذا الطلب.',
    } as Record<string, string>,
    notFound: 'هذا الرابط غير صالح.',
    outboxTitle: 'صندوق الصادر التجريبي',
    outboxEmpty: 'لا توجد رسائل بعد.',
    outboxIntro: 'كل رسالة كانت الخدمة سترسلها، الأحدث أولاً.',
  },
} as const;

export type PageStrings = (typeof STRINGS)['en'];

interface MessageValues {
  name: string;
  title: string;
  link: string | null;
  code?: string;
  method?: string;
}

/** The subject and text of an outbox message. */
export function messageTexts(
  lang: Language,
  kind: string,
  v: MessageValues,
): { subject: string; text: string } {
  const link = v.link ?? '';
  const method = methodName(v.method ?? '', lang);
  if (lang === 'ar') {
    switch (kind) {
      case 'invitation':
        return {
          subject: `مطلوب توقيعك: ${v.title}`,
          text: `مرحباً ${v.name}،\nمطلوب توقيعك على «${v.title}».\n${link}`,
        };
      case 'reminder':
        return {
          subject: `تذكير: ${v.title}`,
          text: `مرحباً ${v.name}،\nما زال «${v.title}» بانتظار توقيعك.\n${link}`,
        };
      case 'code':
        return {
          subject: `رمز التحقق: ${v.code ?? ''}`,
          text: `رمز التحقق لتوقيع «${v.title}»: ${v.code ?? ''}`,
        };
      case 'id_request':
        return { subject: `${method}: طلب تحقق`, text: `طلب تحقق لتوقيع «${v.title}».\n${link}` };
      default:
        return {
          subject: `اكتمل: ${v.title}`,
          text: `مرحباً ${v.name}،\nوقّع الجميع على «${v.title}». النسخة الموقّعة متاحة.\n${link}`,
        };
    }
  }
  switch (kind) {
    case 'invitation':
      return {
        subject: `Please sign: ${v.title}`,
        text: `Hello ${v.name},\nyou are asked to sign "${v.title}".\n${link}`,
      };
    case 'reminder':
      return {
        subject: `Reminder: ${v.title}`,
        text: `Hello ${v.name},\n"${v.title}" is still waiting for your signature.\n${link}`,
      };
    case 'code':
      return {
        subject: `Your code: ${v.code ?? ''}`,
        text: `Your code to sign "${v.title}": ${v.code ?? ''}`,
      };
    case 'id_request':
      return {
        subject: `${method}: identity request`,
        text: `An identity request to sign "${v.title}".\n${link}`,
      };
    default:
      return {
        subject: `Completed: ${v.title}`,
        text: `Hello ${v.name},\neveryone has signed "${v.title}". The signed copy is ready.\n${link}`,
      };
  }
}
