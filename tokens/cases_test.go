package tokens

// countCases are texts and their counts by js-tiktoken 1.0.21.
var countCases = []struct {
	text          string
	o200k, cl100k int
}{
	{"", 0, 0},
	{"hello world", 2, 2},
	{"Hello World!  How's it going?\n\n\tFine.", 12, 12},
	{"I'll've they'RE CamelCaseWords XMLHttpRequest", 10, 9},
	{"12345 3.14159 1,000,000", 13, 13},
	{"  leading and trailing   ", 5, 5},
	{"line1\r\nline2\n\n\n  indented\n", 10, 10},
	{"https://example.com/a/b?c=d&e=f", 11, 11},
	{"naïve café résumé ÄÖÜ straße", 10, 13},
	{"日本語のテキストです。中文文本。한국어", 13, 19},
	{"emoji 😀🎉 and symbols ©®™ → ∑", 12, 13},
	{"namespace functions {\n\n// Finds an order by id\ntype lookupOrder = (_: {\n// The order's id\norderId: number,\nstatus?: \"open\" | \"shipped\",\n}) => any;\n\n} // namespace functions", 44, 45},
	{"áè ́x", 7, 7},
	{"   \n   x", 3, 3},
	{"\t\t\tfoo", 3, 3},
	{"...!!!???\n\n", 3, 3},
	{"ÀB́Ćd mixedCASEword", 8, 9},
	{"Ǆemo ǅa", 7, 7},
	{"x    y 　z", 7, 7},
}
