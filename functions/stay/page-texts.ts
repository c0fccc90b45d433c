/** The stay page's words, in the guest's language (English where a language has none). */
export const stayTexts = {
  en: {
    title: 'Your stay',
    reference: 'Booking reference',
    status: 'Status',
    statuses: {
      held: 'Requested: the dates are held while the company confirms',
      confirmed: 'Confirmed: awaiting payment',
      paid: 'Paid: see you soon',
      cancelled: 'Cancelled',
    },
    checkIn: 'Check-in',
    checkOut: 'Check-out',
    guests: 'Guests',
    nights: 'Nights',
    rates: { base: 'Nightly rate', weekend: 'Weekend rate', season: 'Seasonal rate' },
    fees: { cleaning: 'Cleaning fee', tourism_fee: 'Tourism fee' },
    subtotal: 'Nights together',
    total: 'Total',
    deposit: 'Refundable deposit',
    due: 'Due',
    dueBy: (when: string) => `Payment due by ${when}`,
    holdUntil: (when: string) => `The company confirms by ${when}; payment is due after confirmation.`,
    nothingDue: 'Nothing is due.',
    notFound: 'This stay page does not exist.',
  },
  ar: {
    title: 'إقامتك',
    reference: 'رقم الحجز',
    status: 'الحالة',
    statuses: {
      held: 'تم الطلب: التواريخ محجوزة مؤقتًا حتى تأكيد الشركة',
      confirmed: 'مؤكد: بانتظار الدفع',
      paid: 'مدفوع: نراك قريبًا',
      cancelled: 'ملغى',
    },
    checkIn: 'تسجيل الوصول',
    checkOut: 'تسجيل المغادرة',
    guests: 'الضيوف',
    nights: 'الليالي',
    rates: { base: 'سعر الليلة', weekend: 'سعر نهاية الأسبوع', season: 'سعر الموسم' },
    fees: { cleaning: 'رسوم التنظيف', tourism_fee: 'رسوم السياحة' },
    subtotal: 'مجموع الليالي',
    total: 'المجموع',
    deposit: 'تأمين مسترد',
    due: 'المستحق',
    dueBy: (when: string) => `يستحق الدفع قبل ${when}`,
    holdUntil: (when: string) => `تؤكد الشركة قبل ${when}؛ ويستحق الدفع بعد التأكيد.`,
    nothingDue: 'لا يوجد مبلغ مستحق.',
    notFound: 'صفحة الإقامة هذه غير موجودة.',
  },
} as const;

export type StayLanguage = keyof typeof stayTexts;

export function stayLanguage(language: string | null): StayLanguage {
  return language === 'ar' ? 'ar' : 'en';
}
