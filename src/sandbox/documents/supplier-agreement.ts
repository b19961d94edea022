/**
 * The built-in supplier agreement (`tpl_supplier_agreement`), in English and Arabic, in the
 * templates' own format (template-format.ts).
 */
export const SUPPLIER_AGREEMENT = `
[en]
# Supplier agreement
This supplier agreement ("the Agreement"), reference {{contract_id}}, is made on {{date}} between {{party.1}} ("the Buyer") and {{party.2}} ("the Supplier").

## 1. Scope
The Supplier supplies the goods and services listed in the Buyer's purchase orders under this Agreement (the "Deliverables"). Each purchase order the Supplier accepts forms part of this Agreement.

## 2. Orders and delivery
- The Supplier confirms or rejects each purchase order within two (2) working days.
- The Supplier delivers the Deliverables to the address and on the date the order states, packed so that they are not damaged.
- Risk passes to the Buyer on delivery; ownership passes on payment.

## 3. Quality and acceptance
The Deliverables match the order's description and specifications and are free from defects. The Buyer may reject Deliverables that do not conform within fourteen (14) days of delivery; the Supplier then replaces them or refunds their price.

## 4. Prices and payment
Prices are those of the order and include packing and delivery. The Supplier invoices after delivery, and the Buyer pays a correct invoice within thirty (30) days of receiving it.

## 5. Confidentiality
Each party keeps confidential the business information it receives from the other under this Agreement and uses it only to perform the Agreement, during its term and for two (2) years after.

## 6. Liability
Neither party is liable for indirect or consequential loss. Each party's total liability under this Agreement is limited to the amounts paid or payable in the twelve (12) months before the claim, except for fraud, or for death or injury caused by negligence.

## 7. Term and termination
The Agreement starts on the date above and runs for two (2) years. Either party may end it by ninety (90) days' written notice, or at once if the other materially breaches it and does not remedy the breach within thirty (30) days.

## 8. Governing law
The Agreement is governed by the laws of the United Arab Emirates. Disputes go to the courts of Dubai.

## 9. Electronic signatures
By signing electronically below, each party agrees to this Agreement.

[ar]
# اتفاقية توريد
حُرِّرت اتفاقية التوريد هذه («الاتفاقية»)، ومرجعها {{contract_id}}، بتاريخ {{date}} بين {{party.1}} («المشتري») و{{party.2}} («المورِّد»).

## 1. النطاق
يورِّد المورِّد السلع والخدمات المدرجة في أوامر الشراء الصادرة عن المشتري بموجب هذه الاتفاقية («التوريدات»). ويُعدّ كل أمر شراء يقبله المورِّد جزءاً من هذه الاتفاقية.

## 2. الطلبات والتسليم
- يؤكد المورِّد كل أمر شراء أو يرفضه خلال يومَي (2) عمل.
- يسلّم المورِّد التوريدات إلى العنوان وفي التاريخ المحددين في أمر الشراء، مغلّفةً بما يمنع تلفها.
- تنتقل تبعة الهلاك إلى المشتري عند التسليم، وتنتقل الملكية عند السداد.

## 3. الجودة والقبول
تطابق التوريدات الوصف والمواصفات الواردة في أمر الشراء وتخلو من العيوب. ويجوز للمشتري رفض التوريدات غير المطابقة خلال أربعة عشر (14) يوماً من تسليمها، وعندئذٍ يستبدلها المورِّد أو يردّ ثمنها.

## 4. الأسعار والسداد
الأسعار هي الواردة في أمر الشراء وتشمل التغليف والتوصيل. ويُصدر المورِّد فاتورته بعد التسليم، ويسدّد المشتري الفاتورة الصحيحة خلال ثلاثين (30) يوماً من استلامها.

## 5. السرية
يحافظ كل طرف على سرية المعلومات التجارية التي يتلقاها من الطرف الآخر بموجب هذه الاتفاقية، ولا يستخدمها إلا لتنفيذها، طوال مدتها ولمدة سنتين (2) بعد انتهائها.

## 6. المسؤولية
لا يُسأل أي من الطرفين عن الخسائر غير المباشرة أو التبعية. وتقتصر المسؤولية الإجمالية لكل طرف بموجب هذه الاتفاقية على المبالغ المدفوعة أو المستحقة خلال الاثني عشر (12) شهراً السابقة للمطالبة، إلا في حالات الاحتيال أو الوفاة أو الإصابة الناجمة عن الإهمال.

## 7. المدة والإنهاء
تبدأ الاتفاقية من التاريخ المذكور أعلاه وتسري لمدة سنتين (2). ويجوز لأي من الطرفين إنهاؤها بإشعار كتابي مدته تسعون (90) يوماً، أو فوراً إذا أخلّ الطرف الآخر بها إخلالاً جوهرياً ولم يعالج الإخلال خلال ثلاثين (30) يوماً.

## 8. القانون الواجب التطبيق
تخضع هذه الاتفاقية لقوانين دولة الإمارات العربية المتحدة، وتختص محاكم دبي بالنظر في أي نزاع.

## 9. التوقيع الإلكتروني
بالتوقيع إلكترونياً أدناه يوافق كل طرف على هذه الاتفاقية.
`;
