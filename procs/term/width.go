package term

import "unicode"

// runeWidth returns how many cells r takes on a terminal: 0 for combining
// marks and zero-width characters, 2 for East Asian wide and fullwidth
// characters and most emoji, 1 otherwise. It follows wcwidth closely
// enough for programs that position the cursor by it (readline, prompt
// libraries); exact agreement with every terminal is not possible anyway.
func runeWidth(r rune) int {
	if r < 0x300 {
		return 1
	}
	if unicode.In(r, unicode.Mn, unicode.Me) {
		return 0
	}
	switch {
	case r == 0x200B || r == 0x200C || r == 0x200D || r == 0x2060 || r == 0xFEFF,
		r >= 0xFE00 && r <= 0xFE0F, r >= 0xE0100 && r <= 0xE01EF:
		return 0
	}
	for _, w := range wideRanges {
		if r < w.lo {
			return 1
		}
		if r <= w.hi {
			return 2
		}
	}
	return 1
}

// wideRanges are the double-width blocks, in order.
var wideRanges = [...]struct{ lo, hi rune }{
	{0x1100, 0x115F},   // Hangul Jamo initials
	{0x231A, 0x231B},   // watch, hourglass
	{0x2329, 0x232A},   // angle brackets
	{0x23E9, 0x23EC},   // media controls
	{0x23F0, 0x23F3},   // alarm clock ...
	{0x25FD, 0x25FE},   // small squares
	{0x2614, 0x2615},   // umbrella, hot beverage
	{0x2648, 0x2653},   // zodiac
	{0x267F, 0x267F},   // wheelchair
	{0x2693, 0x2693},   // anchor
	{0x26A1, 0x26A1},   // high voltage
	{0x26AA, 0x26AB},   // circles
	{0x26BD, 0x26BE},   // balls
	{0x26C4, 0x26C5},   // snowman, sun
	{0x26CE, 0x26CE},   // ophiuchus
	{0x26D4, 0x26D4},   // no entry
	{0x26EA, 0x26EA},   // church
	{0x26F2, 0x26F5},   // fountain ...
	{0x26FA, 0x26FD},   // tent ...
	{0x2705, 0x2705},   // check mark
	{0x270A, 0x270B},   // fists
	{0x2728, 0x2728},   // sparkles
	{0x274C, 0x274E},   // cross marks
	{0x2753, 0x2757},   // question marks
	{0x2795, 0x2797},   // plus, minus, division
	{0x27B0, 0x27BF},   // loops
	{0x2B1B, 0x2B1C},   // large squares
	{0x2B50, 0x2B55},   // star, circle
	{0x2E80, 0x303E},   // CJK radicals .. CJK symbols
	{0x3041, 0x33FF},   // Hiragana .. CJK compatibility
	{0x3400, 0x4DBF},   // CJK extension A
	{0x4E00, 0x9FFF},   // CJK unified ideographs
	{0xA000, 0xA4CF},   // Yi
	{0xA960, 0xA97F},   // Hangul Jamo extended A
	{0xAC00, 0xD7A3},   // Hangul syllables
	{0xF900, 0xFAFF},   // CJK compatibility ideographs
	{0xFE10, 0xFE19},   // vertical forms
	{0xFE30, 0xFE6F},   // CJK compatibility forms, small forms
	{0xFF00, 0xFF60},   // fullwidth forms
	{0xFFE0, 0xFFE6},   // fullwidth signs
	{0x16FE0, 0x16FE4}, // ideographic symbols
	{0x17000, 0x18AFF}, // Tangut
	{0x1B000, 0x1B2FF}, // Kana supplement .. Nushu
	{0x1F004, 0x1F004}, // mahjong tile
	{0x1F0CF, 0x1F0CF}, // playing card
	{0x1F18E, 0x1F18E}, // AB button
	{0x1F191, 0x1F19A}, // squared words
	{0x1F200, 0x1F251}, // enclosed ideographic supplement
	{0x1F300, 0x1F64F}, // pictographs, emoticons
	{0x1F680, 0x1F6FF}, // transport and map
	{0x1F7E0, 0x1F7EB}, // coloured circles and squares
	{0x1F90C, 0x1F9FF}, // supplemental symbols and pictographs
	{0x1FA70, 0x1FAFF}, // symbols and pictographs extended A
	{0x20000, 0x2FFFD}, // CJK extension B ..
	{0x30000, 0x3FFFD}, // CJK extension G ..
}
