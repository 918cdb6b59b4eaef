package collation

// locales maps each locale mongod 7.0 accepts (its documented list of
// ICU locales) to the BCP 47 tag Lode gives golang.org/x/text/collate.
// An empty tag means the locale is valid in mongod but Lode cannot
// collate it faithfully: its CLDR tailoring is not in x/text, or x/text
// ignores a setting the tailoring makes that Lode does not apply itself,
// so it is refused with NotImplemented.
var locales = map[string]string{
	"af": "af", "sq": "sq", "am": "am", "ar": "ar", "hy": "hy", "as": "as",
	"az": "az", "bn": "bn", "be": "be", "bs": "bs", "bs_Cyrl": "bs-Cyrl",
	"bg": "bg", "my": "my", "ca": "ca", "chr": "", "zh": "zh",
	"zh_Hant": "zh-Hant", "hr": "hr", "cs": "cs", "da": "da", "nl": "nl",
	"dz": "dz", "en": "en", "en_US": "en-US", "en_US_POSIX": "en-US-u-va-posix",
	"eo": "eo", "et": "et", "ee": "ee", "fo": "fo", "fil": "fil",
	"fi_FI": "fi", "fr": "fr", "fr_CA": "fr-CA", "gl": "gl", "ka": "ka",
	"de": "de", "de_AT": "de-AT", "el": "el", "gu": "gu", "ha": "ha",
	"haw": "haw", "he": "he", "hi": "hi", "hu": "hu", "is": "is", "ig": "ig",
	"smn": "", "id": "id", "ga": "ga", "it": "it", "ja": "ja", "kl": "kl",
	"kn": "kn", "kk": "kk", "km": "km", "kok": "kok", "ko": "ko", "ky": "",
	"lkt": "", "lo": "", "lv": "lv", "ln": "ln", "lt": "lt", "dsb": "",
	"lb": "lb", "mk": "mk", "ms": "ms", "ml": "ml", "mt": "mt", "mr": "mr",
	"mn": "", "ne": "", "se": "se", "nb": "nb", "nn": "nn", "or": "or",
	"om": "om", "ps": "ps", "fa": "fa", "fa_AF": "fa-AF", "pl": "pl",
	"pt": "pt", "pa": "pa", "ro": "ro", "ru": "ru", "sr": "sr",
	"sr_Latn": "sr-Latn", "si": "si", "sk": "sk", "sl": "sl", "es": "es",
	"sw": "sw", "sv": "sv", "ta": "ta", "te": "te", "th": "", "bo": "",
	"to": "to", "tr": "tr", "uk": "uk", "hsb": "", "ur": "ur", "ug": "",
	"vi": "vi", "wae": "wae", "cy": "cy", "yi": "", "yo": "yo", "zu": "zu",
	// Collation variants (ICU's @collation= keyword).
	"de@collation=phonebook":    "de-u-co-phonebk",
	"de_AT@collation=phonebook": "",
	"zh@collation=pinyin":       "zh",
	"zh@collation=stroke":       "zh-u-co-stroke",
	"zh_Hant@collation=pinyin":  "zh-Hant-u-co-pinyin",
	"zh@collation=big5han":      "", "zh@collation=gb2312han": "",
	"zh@collation=unihan": "", "zh@collation=zhuyin": "",
	"ln@collation=phonetic":  "ln-u-co-phonetic",
	"fi_FI@collation=search": "", "sv@collation=search": "",
	"ko@collation=search": "", "es@collation=search": "",
	"ca@collation=search": "", "es@collation=traditional": "",
	"si@collation=dictionary": "", "kn@collation=traditional": "",
	"bn@collation=traditional": "", "vi@collation=traditional": "",
	"ar@collation=compat": "",
}

// defaultBackwards lists the locales whose ICU tailoring turns on
// backwards secondary ordering (French accents) by default.
var defaultBackwards = map[string]bool{"fr_CA": true}

// upperFirstLocales lists the locales whose CLDR tailoring sets
// [caseFirst upper] (Danish and Maltese): their default caseFirst is
// "upper", as mongod reports it. x/text's tailorings of them ignore the
// setting, which Lode applies itself (casekey.go).
var upperFirstLocales = map[string]bool{"da": true, "mt": true}

// defaultCaseFirst is the caseFirst a locale's collation has when the
// collation document does not give one.
func defaultCaseFirst(locale string) string {
	if upperFirstLocales[locale] {
		return "upper"
	}
	return "off"
}
