import type { LineKind } from '../../schema/statements/db';

/** The printable statement's words, in English and Arabic (the page is right to left in Arabic). */
export type PageLanguage = 'en' | 'ar';

type Texts = {
  title: string;
  company: string;
  owner: string;
  erased: string;
  period: string;
  status: string;
  statuses: Record<'open' | 'closed', string>;
  closesOn: string;
  lines: string;
  day: string;
  what: string;
  lease: string;
  home: string;
  record: string;
  amount: string;
  /** The column of the VAT included in a line's amount (issue 35). */
  vat: string;
  none: string;
  kinds: Record<LineKind, string>;
  /** How a receipt was paid: online (with the provider's word for the method), or by cheque. */
  online: string;
  cheque: string;
  totals: string;
  currency: string;
  sums: Record<
    | 'rent_received'
    | 'fees'
    | 'rent_reversed'
    | 'fees_reversed'
    | 'job_charges'
    | 'job_charges_cancelled'
    | 'rent_vat'
    | 'rent_vat_reversed'
    | 'fees_vat'
    | 'fees_vat_reversed'
    | 'rent_vat_for_owner'
    | 'rent_vat_for_owner_reversed'
    | 'bookings_received'
    | 'bookings_refunded'
    | 'net',
    string
  >;
  opening: string;
  closing: string;
  print: string;
  notFound: string;
  expired: string;
};

export const pageTexts: Record<PageLanguage, Texts> = {
  en: {
    title: 'Owner statement',
    company: 'Company',
    owner: 'Owner',
    erased: '(name erased)',
    period: 'Period',
    status: 'Status',
    statuses: { open: 'Open: the month is still being booked', closed: 'Closed: final' },
    closesOn: 'Closes on',
    lines: 'Lines',
    day: 'Day',
    what: 'Line',
    lease: 'Lease',
    home: 'Home',
    record: 'Record',
    amount: 'Amount',
    vat: 'VAT included',
    none: 'Nothing was booked this month.',
    kinds: {
      rent_received: 'Rent received',
      fee: 'Management fee',
      rent_reversed: 'Rent reversed (payment bounced)',
      fee_reversed: 'Management fee returned (payment bounced)',
      job_charge: 'Maintenance charge',
      job_charge_cancelled: 'Maintenance charge cancelled',
      rent_vat: 'VAT on rent (accounted for by the company)',
      rent_vat_reversed: 'VAT on rent returned (payment bounced)',
      booking_received: 'Booking received (guest paid online)',
      booking_refunded: 'Booking refunded to the guest',
    },
    online: 'paid online',
    cheque: 'cheque',
    totals: 'Totals',
    currency: 'Currency',
    sums: {
      rent_received: 'Rent received',
      fees: 'Management fees',
      rent_reversed: 'Rent reversed',
      fees_reversed: 'Management fees returned',
      job_charges: 'Maintenance charges',
      job_charges_cancelled: 'Maintenance charges cancelled',
      rent_vat: 'VAT on rent',
      rent_vat_reversed: 'VAT on rent returned',
      fees_vat: 'of which VAT on management fees',
      fees_vat_reversed: 'of which VAT on management fees returned',
      rent_vat_for_owner: 'of which VAT on rent, for you to declare',
      rent_vat_for_owner_reversed: 'of which VAT on rent returned, for you to declare',
      bookings_received: 'Bookings received',
      bookings_refunded: 'Bookings refunded',
      net: 'Net for the month',
    },
    opening: 'Opening balance',
    closing: 'Closing balance',
    print: 'Print this page, or save it as a PDF, from your browser.',
    notFound: 'Statement not found',
    expired: 'This link has expired: ask the company for a new one.',
  },
  ar: {
    title: 'كشف حساب المالك',
    company: 'الشركة',
    owner: 'المالك',
    erased: '(تم حذف الاسم)',
    period: 'الفترة',
    status: 'الحالة',
    statuses: { open: 'مفتوح: لا يزال الشهر قيد التسجيل', closed: 'مغلق: نهائي' },
    closesOn: 'يُغلق في',
    lines: 'الحركات',
    day: 'التاريخ',
    what: 'البيان',
    lease: 'عقد الإيجار',
    home: 'العقار',
    record: 'المرجع',
    amount: 'المبلغ',
    vat: 'ضريبة القيمة المضافة المشمولة',
    none: 'لا توجد حركات مسجلة في هذا الشهر.',
    kinds: {
      rent_received: 'إيجار مستلم',
      fee: 'رسوم الإدارة',
      rent_reversed: 'إيجار مسترد (شيك مرتجع)',
      fee_reversed: 'رسوم إدارة مستردة (شيك مرتجع)',
      job_charge: 'تكلفة صيانة',
      job_charge_cancelled: 'إلغاء تكلفة صيانة',
      rent_vat: 'ضريبة القيمة المضافة على الإيجار (تؤديها الشركة)',
      rent_vat_reversed: 'ضريبة القيمة المضافة على الإيجار مستردة (شيك مرتجع)',
      booking_received: 'دفعة حجز مستلمة (دفعها الضيف إلكترونياً)',
      booking_refunded: 'دفعة حجز مستردة للضيف',
    },
    online: 'مدفوع إلكترونياً',
    cheque: 'شيك',
    totals: 'الإجماليات',
    currency: 'العملة',
    sums: {
      rent_received: 'الإيجار المستلم',
      fees: 'رسوم الإدارة',
      rent_reversed: 'الإيجار المسترد',
      fees_reversed: 'رسوم الإدارة المستردة',
      job_charges: 'تكاليف الصيانة',
      job_charges_cancelled: 'تكاليف الصيانة الملغاة',
      rent_vat: 'ضريبة القيمة المضافة على الإيجار',
      rent_vat_reversed: 'ضريبة القيمة المضافة على الإيجار المستردة',
      fees_vat: 'منها ضريبة القيمة المضافة على رسوم الإدارة',
      fees_vat_reversed: 'منها ضريبة القيمة المضافة على رسوم الإدارة المستردة',
      rent_vat_for_owner: 'منها ضريبة القيمة المضافة على الإيجار، تصرّح بها أنت',
      rent_vat_for_owner_reversed: 'منها ضريبة القيمة المضافة على الإيجار المسترد، تصرّح بها أنت',
      bookings_received: 'دفعات الحجوزات المستلمة',
      bookings_refunded: 'دفعات الحجوزات المستردة',
      net: 'صافي الشهر',
    },
    opening: 'الرصيد الافتتاحي',
    closing: 'الرصيد الختامي',
    print: 'اطبع هذه الصفحة أو احفظها بصيغة PDF من متصفحك.',
    notFound: 'لم يتم العثور على الكشف',
    expired: 'انتهت صلاحية هذا الرابط: اطلب رابطاً جديداً من الشركة.',
  },
};
