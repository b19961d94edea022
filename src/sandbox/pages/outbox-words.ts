/**
 * What the outbox's messages say (outbox.ts), in the envelope's language: Arabic for `ar`,
 * English otherwise. Times are put in humanised (`1 March 2027, 09:00 UTC`), links whole.
 */
import { humanDuration, humanTime, methodName, type Language } from '../documents/humanise.js';

export interface MessageValues {
  name: string;
  title: string;
  link: string | null;
  /** When the envelope (invitation, reminder) or the code or number (code, id_request) expires. */
  expires?: number | undefined;
  /** When the message went out: a code's validity is counted from it. */
  at: number;
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
  const until = v.expires === undefined ? undefined : humanTime(v.expires, lang);
  const span = v.expires === undefined ? '' : humanDuration(v.expires - v.at, lang);
  if (lang === 'ar') {
    const by = until ? `\nيُرجى التوقيع قبل ${until}.` : '';
    switch (kind) {
      case 'invitation':
        return {
          subject: `مطلوب توقيعك: ${v.title}`,
          text: `مرحباً ${v.name}،\nمطلوب توقيعك على «${v.title}».${by}\nراجع ووقّع: ${link}`,
        };
      case 'reminder':
        return {
          subject: `تذكير: ${v.title}`,
          text: `مرحباً ${v.name}،\nما زال «${v.title}» بانتظار توقيعك.${by}\n${link}`,
        };
      case 'code':
        return {
          subject: `رمز التحقق: ${v.code ?? ''}`,
          text: `رمز التحقق لتوقيع «${v.title}»: ${v.code ?? ''}\nصالح ${span}، حتى ${until ?? ''}. لا تشاركه مع أحد.`,
        };
      case 'id_request':
        return {
          subject: `${method}: طلب تحقق`,
          text: `طلب تحقق لتوقيع «${v.title}». اختر الرقم الظاهر في صفحة التوقيع خلال ${span} (حتى ${until ?? ''}).\n${link}`,
        };
      default:
        return {
          subject: `اكتمل: ${v.title}`,
          text: `مرحباً ${v.name}،\nوقّع الجميع على «${v.title}». النسخة الموقّعة جاهزة.\n${link}`,
        };
    }
  }
  const by = until ? `\nPlease sign by ${until}.` : '';
  switch (kind) {
    case 'invitation':
      return {
        subject: `Please sign: ${v.title}`,
        text: `Hello ${v.name},\nyou are asked to sign "${v.title}".${by}\nReview and sign: ${link}`,
      };
    case 'reminder':
      return {
        subject: `Reminder: ${v.title}`,
        text: `Hello ${v.name},\n"${v.title}" is still waiting for your signature.${by}\n${link}`,
      };
    case 'code':
      return {
        subject: `Your code: ${v.code ?? ''}`,
        text: `Your code to sign "${v.title}": ${v.code ?? ''}\nIt is valid for ${span}, until ${until ?? ''}. Do not share it.`,
      };
    case 'id_request':
      return {
        subject: `${method}: identity request`,
        text: `An identity request to sign "${v.title}". Choose the number the signing page shows within ${span} (until ${until ?? ''}).\n${link}`,
      };
    default:
      return {
        subject: `Completed: ${v.title}`,
        text: `Hello ${v.name},\neveryone has signed "${v.title}". The signed copy is ready.\n${link}`,
      };
  }
}
