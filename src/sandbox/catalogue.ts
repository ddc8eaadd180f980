/** Word lists for the generated data set: buyers in many countries and languages. */

export interface CountryInfo {
  code: string;
  currency: string;
  lang: string;
  places: string[];
  /** Buyer name patterns; {p} is a place. */
  buyers: string[];
}

export const COUNTRIES: CountryInfo[] = [
  { code: 'DEU', currency: 'EUR', lang: 'de', places: ['Köln', 'München', 'Berlin', 'Leipzig', 'Hamburg'], buyers: ['Stadt {p}', 'Landkreis {p}', 'Universitätsklinikum {p}', 'Stadtwerke {p} GmbH', 'St. Josef-Hospital {p}'] },
  { code: 'AUT', currency: 'EUR', lang: 'de', places: ['Wien', 'Graz', 'Linz', 'Salzburg'], buyers: ['Magistrat {p}', 'Landeskrankenhaus {p}', 'Gemeinde {p}', 'Hospital der Barmherzigen Brüder {p}'] },
  { code: 'CHE', currency: 'CHF', lang: 'de', places: ['Zürich', 'Bern', 'Basel', 'Genève'], buyers: ['Stadt {p}', 'Kanton {p}', 'Spital {p}'] },
  { code: 'FRA', currency: 'EUR', lang: 'fr', places: ['Lyon', 'Marseille', 'Lille', 'Nantes', 'Paris'], buyers: ['Ville de {p}', 'Métropole de {p}', 'CHU de {p}', 'Région {p}'] },
  { code: 'BEL', currency: 'EUR', lang: 'fr', places: ['Bruxelles', 'Liège', 'Gent', 'Antwerpen'], buyers: ['Ville de {p}', 'Stad {p}', 'CPAS de {p}'] },
  { code: 'LUX', currency: 'EUR', lang: 'fr', places: ['Luxembourg', 'Esch-sur-Alzette'], buyers: ['Ville de {p}', 'Administration des ponts et chaussées {p}'] },
  { code: 'ITA', currency: 'EUR', lang: 'it', places: ['Milano', 'Torino', 'Napoli', 'Bologna', 'Roma'], buyers: ['Comune di {p}', 'Azienda Ospedaliera di {p}', 'Provincia di {p}'] },
  { code: 'ESP', currency: 'EUR', lang: 'es', places: ['Madrid', 'Sevilla', 'Valencia', 'Bilbao'], buyers: ['Ayuntamiento de {p}', 'Hospital Universitario de {p}', 'Diputación de {p}'] },
  { code: 'PRT', currency: 'EUR', lang: 'pt', places: ['Lisboa', 'Porto', 'Braga'], buyers: ['Câmara Municipal de {p}', 'Hospital de {p}'] },
  { code: 'NLD', currency: 'EUR', lang: 'nl', places: ['Amsterdam', 'Utrecht', 'Rotterdam', 'Eindhoven'], buyers: ['Gemeente {p}', 'Waterschap {p}', 'Provincie {p}'] },
  { code: 'POL', currency: 'PLN', lang: 'pl', places: ['Kraków', 'Warszawa', 'Gdańsk', 'Wrocław', 'Łódź'], buyers: ['Urząd Miasta {p}', 'Szpital Wojewódzki w {p}', 'Zarząd Dróg Miejskich {p}'] },
  { code: 'CZE', currency: 'CZK', lang: 'cs', places: ['Praha', 'Brno', 'Ostrava'], buyers: ['Statutární město {p}', 'Fakultní nemocnice {p}'] },
  { code: 'SVK', currency: 'EUR', lang: 'sk', places: ['Bratislava', 'Košice'], buyers: ['Mesto {p}', 'Univerzitná nemocnica {p}'] },
  { code: 'HUN', currency: 'HUF', lang: 'hu', places: ['Budapest', 'Debrecen', 'Szeged'], buyers: ['{p} Megyei Jogú Város', '{p} Kórház'] },
  { code: 'ROU', currency: 'RON', lang: 'ro', places: ['București', 'Cluj-Napoca', 'Iași'], buyers: ['Primăria {p}', 'Spitalul Județean {p}'] },
  { code: 'BGR', currency: 'BGN', lang: 'bg', places: ['София', 'Пловдив', 'Варна'], buyers: ['Столична община {p}', 'Община {p}', 'УМБАЛ {p}'] },
  { code: 'GRC', currency: 'EUR', lang: 'el', places: ['Αθήνα', 'Θεσσαλονίκη', 'Πάτρα', 'Ηράκλειο'], buyers: ['Δήμος {p}', 'Περιφέρεια {p}', 'Γενικό Νοσοκομείο {p}'] },
  { code: 'CYP', currency: 'EUR', lang: 'el', places: ['Λευκωσία', 'Λεμεσός'], buyers: ['Δήμος {p}'] },
  { code: 'UKR', currency: 'EUR', lang: 'uk', places: ['Київ', 'Львів', 'Одеса', 'Харків'], buyers: ['Київська міська рада {p}', 'Міська лікарня {p}', 'Управління доріг {p}'] },
  { code: 'HRV', currency: 'EUR', lang: 'hr', places: ['Zagreb', 'Split', 'Rijeka'], buyers: ['Grad {p}', 'KBC {p}'] },
  { code: 'SVN', currency: 'EUR', lang: 'sl', places: ['Ljubljana', 'Maribor'], buyers: ['Mestna občina {p}'] },
  { code: 'SWE', currency: 'SEK', lang: 'sv', places: ['Stockholm', 'Göteborg', 'Malmö', 'Uppsala'], buyers: ['{p} kommun', 'Region {p}', 'Trafikverket {p}'] },
  { code: 'DNK', currency: 'DKK', lang: 'da', places: ['København', 'Aarhus', 'Odense'], buyers: ['{p} Kommune', 'Region {p}'] },
  { code: 'NOR', currency: 'NOK', lang: 'no', places: ['Oslo', 'Bergen', 'Trondheim'], buyers: ['{p} kommune', 'Helse {p}'] },
  { code: 'FIN', currency: 'EUR', lang: 'fi', places: ['Helsinki', 'Tampere', 'Oulu'], buyers: ['{p}n kaupunki', 'HUS {p}'] },
  { code: 'EST', currency: 'EUR', lang: 'et', places: ['Tallinn', 'Tartu'], buyers: ['{p} Linnavalitsus'] },
  { code: 'LVA', currency: 'EUR', lang: 'lv', places: ['Rīga', 'Daugavpils'], buyers: ['{p} valstspilsētas pašvaldība'] },
  { code: 'LTU', currency: 'EUR', lang: 'lt', places: ['Vilnius', 'Kaunas'], buyers: ['{p} miesto savivaldybė'] },
  { code: 'IRL', currency: 'EUR', lang: 'en', places: ['Dublin', 'Cork', 'Galway'], buyers: ['{p} City Council', 'HSE {p}'] },
  { code: 'GBR', currency: 'GBP', lang: 'en', places: ['Leeds', 'Manchester', 'Glasgow', 'Cardiff'], buyers: ['{p} City Council', 'NHS {p} Trust', 'Transport for {p}'] },
  { code: 'MLT', currency: 'EUR', lang: 'en', places: ['Valletta'], buyers: ['Local Council {p}'] },
  { code: 'JPN', currency: 'EUR', lang: 'ja', places: ['東京', '大阪', '札幌'], buyers: ['{p}都庁', '{p}市役所'] },
];

/** EUR per unit of currency, fixed: values compare in EUR (spec 2.4). */
export const EUR_RATES: Record<string, number> = {
  EUR: 1, PLN: 0.232, CZK: 0.0398, HUF: 0.00252, RON: 0.201, SEK: 0.0871, DKK: 0.134, BGN: 0.511, CHF: 1.06, GBP: 1.17, NOK: 0.0855,
};

/** Procurement subjects by language; {p} is a place. */
export const SUBJECTS: Record<string, string[]> = {
  de: ['Neubau einer Grundschule in {p}', 'Lieferung von Streusalz', 'Sanierung der Brücke über die Bahnlinie', 'Reinigung von Verwaltungsgebäuden', 'IT-Dienstleistungen für das Bürgeramt {p}', 'Lieferung medizinischer Geräte', 'Erweiterung des Krankenhauses {p}'],
  fr: ['Construction d\'un gymnase à {p}', 'Fourniture de repas scolaires', 'Entretien des espaces verts', 'Travaux de voirie, rue de la Gare', 'Maintenance des ascenseurs', 'Blanchisserie du centre hospitalier de {p}'],
  it: ['Manutenzione stradale a {p}', 'Fornitura di arredi scolastici', 'Servizio di pulizia degli uffici comunali', 'Lavori di ristrutturazione del municipio'],
  es: ['Obras de urbanización en {p}', 'Suministro de material sanitario', 'Servicio de limpieza viaria', 'Mantenimiento de alumbrado público', 'Suministro de camas para el Hospital de {p}'],
  pt: ['Empreitada de requalificação urbana em {p}', 'Fornecimento de refeições escolares', 'Ampliação do hospital de {p}'],
  nl: ['Onderhoud openbare verlichting {p}', 'Levering van schoolmeubilair', 'Renovatie van het gemeentehuis'],
  pl: ['Budowa ścieżki rowerowej w {p}', 'Dostawa sprzętu komputerowego', 'Remont budynku szkoły podstawowej', 'Odbiór odpadów komunalnych'],
  cs: ['Rekonstrukce mostu v {p}', 'Dodávka zdravotnického materiálu'],
  sk: ['Rekonštrukcia chodníkov v {p}', 'Dodávka potravín'],
  hu: ['Útfelújítás {p} belvárosában', 'Orvosi eszközök beszerzése'],
  ro: ['Reabilitarea străzilor din {p}', 'Furnizare echipamente medicale'],
  bg: ['Ремонт на улична мрежа в {p}', 'Доставка на медицинско оборудване', 'Почистване на общински сгради'],
  el: ['Αναβάθμιση οδικού δικτύου {p}', 'Προμήθεια ιατρικού εξοπλισμού', 'Καθαρισμός δημοτικών κτιρίων'],
  uk: ['Ремонт дорожнього покриття у {p}', 'Закупівля медичного обладнання', 'Відновлення шкільної будівлі'],
  hr: ['Rekonstrukcija ulica u {p}', 'Nabava medicinske opreme'],
  sl: ['Obnova ceste v {p}', 'Dobava šolske opreme'],
  sv: ['Ombyggnad av förskola i {p}', 'Leverans av snöröjningstjänster', 'Upphandling av skolskjuts'],
  da: ['Renovering af skole i {p}', 'Levering af kontorartikler', 'Rengøring på {p} Universitetshospital'],
  no: ['Bygging av ny barnehage i {p}', 'Levering av IT-utstyr'],
  fi: ['Koulun peruskorjaus, {p}', 'Lumityöpalvelut'],
  et: ['{p} tänavate remont', 'Meditsiiniseadmete hange'],
  lv: ['Ielu pārbūve {p}', 'Medicīnas iekārtu piegāde'],
  lt: ['Gatvių rekonstrukcija {p}', 'Medicininės įrangos pirkimas'],
  en: ['Resurfacing of roads in {p}', 'Supply of school furniture', 'Cleaning services for council offices', 'Framework for IT support, {p}', 'Design and build of a new library', 'Hospital catering services, {p}', 'Supply of hospital beds and mattresses'],
  ja: ['{p}庁舎の改修工事', '学校給食の調達', '道路維持管理業務'],
};

/** Titles that test every consumer: quoting, line breaks, scripts, formulas, escape sequences. */
export const HOSTILE_TITLES = [
  'Road maintenance, lot 2 "North", phase 1',
  'Cleaning services\nLot 1: offices\r\nLot 2: schools',
  '\u001b[31mURGENT\u001b[0m repair of the \u001b]0;pwned\u0007 old bridge',
  'Αναβάθμιση οδικού δικτύου Θεσσαλονίκης — φάση Β΄',
  '=HYPERLINK("http://evil.example","click me")',
  'Ремонт покрівлі, "Школа №5"',
  '東京都庁舎の改修工事 🚧 第2期',
  '+SUM(A1:A9) office supplies',
  '-2+3 chairs @ school',
  '@cmd|\' /C calc\'!A0',
  'صيانة المباني الحكومية',
  'Tab\tseparated\ttitle with a bell\u0007 and CSI \u009b2J',
  'Supply of 🚑 ambulances, incl. "4×4" models; lot A, B & C',
  `Framework agreement for the provision of consultancy services in the fields of urban planning, environmental impact assessment, traffic engineering, landscape architecture and public participation, including the preparation of feasibility studies, tender documentation, site supervision and the evaluation of outcomes over a period of forty-eight months, divided into six regional lots`,
];

export const STATUSES = ['open', 'closed', 'awarded', 'cancelled'] as const;
export const PROCEDURES = ['open', 'restricted', 'negotiated', 'competitive-dialogue'];
export const CPV = ['45233140', '45214200', '33100000', '30200000', '90910000', '79410000', '55524000', '34144210', '72000000', '71000000'];

/** Codes of the CPV 2008 vocabulary that go with each of CPV's: a tender's `cpvCodes` is its `cpv` and some of these. */
export const CPV_RELATED: Readonly<Record<string, readonly string[]>> = {
  '45233140': ['45233120', '45233220', '45233200', '45112500'],
  '45214200': ['45214210', '45214220', '45453000', '71240000'],
  '33100000': ['33140000', '33190000', '33141000'],
  '30200000': ['30213100', '30232000', '48000000'],
  '90910000': ['90911200', '90911300', '90919200'],
  '79410000': ['79411000', '79421000', '72200000'],
  '55524000': ['55523100', '55521200'],
  '34144210': ['34144212', '35110000'],
  '72000000': ['72200000', '72260000', '72500000', '48000000'],
  '71000000': ['71300000', '71320000', '71240000'],
};
