/**
 * The built-in office lease, in English and Arabic, in the templates' own format
 * (template-format.ts): what a signer of `tpl_office_lease` (and of `tpl_lease_renewal`, the
 * template the examples and `envelopes sample` name) reads and signs in the sandbox.
 */
export const OFFICE_LEASE = `
[en]
# Office lease agreement
This office lease agreement ("the Lease"), reference {{contract_id}}, is made on {{date}} between {{party.1}} ("the Landlord") and {{party.2}} ("the Tenant").

## 1. Premises
The Landlord lets to the Tenant the office premises described in the schedule to this Lease (the "Premises"), with the right to use the common parts of the building for access.

## 2. Term
The Lease runs for twelve (12) months from the first day of the month after the date of this Lease. It renews for further periods of twelve months unless either party gives written notice at least sixty (60) days before the end of the current period.

## 3. Rent and deposit
- The Tenant pays the annual rent in four equal instalments, each in advance on the first day of a quarter.
- The Tenant pays a security deposit equal to one quarter's rent, which the Landlord holds and returns within thirty (30) days of the end of the Lease, less any amount owed.
- A late payment carries a charge of one percent (1%) for each month of delay.

## 4. Use
The Tenant uses the Premises only as offices for its business, follows the building rules, and neither sublets the Premises nor assigns the Lease without the Landlord's written consent.

## 5. Maintenance and repairs
The Landlord keeps the structure, the building systems and the common parts in good repair. The Tenant keeps the inside of the Premises clean and in good condition, fair wear and tear excepted, and reports any damage promptly.

## 6. Alterations
The Tenant makes no structural alteration without the Landlord's written consent and, at the end of the Lease, returns the Premises in the condition they were in at its start, unless the Landlord agrees otherwise in writing.

## 7. Insurance
The Landlord insures the building. The Tenant insures its own contents and holds third-party liability cover for its use of the Premises.

## 8. Termination
Either party may end the Lease by written notice if the other materially breaches it and does not remedy the breach within thirty (30) days of being asked to.

## 9. Governing law
The Lease is governed by the laws of the United Arab Emirates. Disputes go to the courts of the emirate in which the Premises are located.

## 10. Electronic signatures
By signing electronically below, each party agrees to this Lease. Between the parties, an electronic signature has the same effect as a handwritten one.

[ar]
# عقد إيجار مكتب
حُرِّر عقد إيجار المكتب هذا («العقد»)، ومرجعه {{contract_id}}، بتاريخ {{date}} بين {{party.1}} («المؤجِّر») و{{party.2}} («المستأجِر»).

## 1. العين المؤجَّرة
يؤجِّر المؤجِّر للمستأجِر المكتب الموصوف في الملحق المرفق بهذا العقد («العين المؤجَّرة»)، مع حق استخدام الأجزاء المشتركة من المبنى للدخول والخروج.

## 2. المدة
مدة العقد اثنا عشر (12) شهراً تبدأ من اليوم الأول من الشهر التالي لتاريخ هذا العقد، وتتجدد لمدد مماثلة ما لم يُخطر أحد الطرفين الآخر كتابةً قبل ستين (60) يوماً على الأقل من نهاية المدة الجارية.

## 3. الأجرة والتأمين
- يدفع المستأجِر الأجرة السنوية على أربعة أقساط متساوية، يُدفع كل قسط مقدَّماً في اليوم الأول من كل ربع سنة.
- يدفع المستأجِر تأميناً يعادل أجرة ربع سنة، يحتفظ به المؤجِّر ويردّه خلال ثلاثين (30) يوماً من انتهاء العقد بعد خصم أي مبالغ مستحقة.
- يترتب على التأخر في السداد رسم قدره واحد في المئة (1%) عن كل شهر تأخير.

## 4. الاستعمال
يستعمل المستأجِر العين المؤجَّرة مكاتبَ لأعماله فقط، ويلتزم بأنظمة المبنى، ولا يؤجِّرها من الباطن ولا يتنازل عن العقد إلا بموافقة المؤجِّر الكتابية.

## 5. الصيانة والإصلاحات
يتولى المؤجِّر صيانة الهيكل وأنظمة المبنى والأجزاء المشتركة. ويحافظ المستأجِر على نظافة العين المؤجَّرة من الداخل وعلى حالتها الجيدة، باستثناء الاستهلاك العادي، ويبلّغ عن أي ضرر فور وقوعه.

## 6. التعديلات
لا يُجري المستأجِر أي تعديل إنشائي دون موافقة المؤجِّر الكتابية، ويعيد العين المؤجَّرة عند انتهاء العقد إلى حالتها عند بدايته، ما لم يتفق مع المؤجِّر كتابةً على غير ذلك.

## 7. التأمين على الممتلكات
يؤمِّن المؤجِّر على المبنى، ويؤمِّن المستأجِر على محتوياته ويحتفظ بتأمين المسؤولية تجاه الغير عن استعماله للعين المؤجَّرة.

## 8. إنهاء العقد
يجوز لأي من الطرفين إنهاء العقد بإشعار كتابي إذا أخلّ الطرف الآخر إخلالاً جوهرياً بأحكامه ولم يعالج الإخلال خلال ثلاثين (30) يوماً من مطالبته بذلك.

## 9. القانون الواجب التطبيق
يخضع هذا العقد لقوانين دولة الإمارات العربية المتحدة، وتختص بالنظر في أي نزاع محاكم الإمارة التي تقع فيها العين المؤجَّرة.

## 10. التوقيع الإلكتروني
بالتوقيع إلكترونياً أدناه يوافق كل طرف على هذا العقد. وللتوقيع الإلكتروني بين الطرفين أثر التوقيع بخط اليد نفسه.
`;
