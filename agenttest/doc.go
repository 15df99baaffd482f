// Package agenttest runs the agent tests declared in gram files: it loads a
// file and the agents it tests, runs each test's user turns through the same
// runtime as `gramc run` ([runtime.Run], the same tool library and model
// clients), checks the agent's tool calls and answers against the test's
// expectations, asks judge agents to score rubrics, and records or replays
// the model traffic of each test as a cassette so that tests run offline
// and in CI with no API key. The gramc test command is a thin layer over it.
//
// # Tests in gram
//
// A test is a top-level pattern labelled Test, in the agent's file or in a
// file named after it with _test.gram (greeter_test.gram tests the agents of
// greeter.gram, and may use its tools and records):
//
//	[greets_bob:Test {agent: greeter, trajectory: inOrder} |
//	  (:User {says: "Hi, I'm Bob"}),
//	  (:Call {tool: sayHello, args: {personName: "Bob"}}),
//	  (:NoCall {tool: sayGoodbye}),
//	  (:Answer {contains: "Bob"}),
//	  (:Rubric {judge: critic, criterion: "The reply is friendly", threshold: 0.8})
//	]
//
// Its elements are read in order: each User starts a turn (one call of the
// agent with what the user says, the conversation carried over from the turn
// before), and the expectations after it are about that turn:
//
//   - (:Call {tool: t}) expects a call of t. args: {...} gives every argument
//     of the call (no other may be sent); argsInclude: {...} gives some of
//     them. Written as a group, a Call holds argument matchers, nodes named
//     after the argument (a dotted path reaches inside arrays and records,
//     items.0.sku) with one matcher each: equals: v, any: true, matches:
//     "regex", range: 1..10 (open ends 5... and ...10), format: "email"
//     (see [schema.ValueFormats]) or absent: true.
//   - The test's trajectory property says how a turn's calls compare with the
//     agent's: exact (these calls in this order and no others), inOrder (the
//     default: these calls in this order, others allowed around them) or
//     anyOrder (each expected call matched by a different actual call).
//   - (:NoCall {tool: t}) fails the turn if t is called in it (by the
//     agent, or after a handoff by the agent handed to).
//   - (:Answer {...}) checks the final answer: contains: "text", matches:
//     "regex", equals: "text" (white space at the ends aside), json: Type
//     (the answer is JSON valid against a record or built-in type).
//   - For composed agents: (:Call {tool: t, agent: b}) expects a call of t
//     by agent b, which the tested agent reaches (as a tool, through others,
//     or by a handoff), in a nested run at any depth or after a handoff; the
//     trajectory mode compares b's calls. (:Handoff {to: b}) expects the turn
//     handed to b. [:Answer | (field {matcher}), ...] matches the fields of
//     the typed answer of an agent with a result type.
//   - (:Rubric {judge: agent, criterion: "...", threshold: 0.7}) asks the
//     judge agent, declared like any agent, to score the turn from 0 to 1
//     against the criterion; the turn passes when the score reaches the
//     threshold (default [schema.DefaultThreshold]).
//   - (:Decision {tool: t, approve: false, reason: "..."}) is not an
//     expectation but a person's answer: the runner gives no approver, so
//     a run that calls the approval tool t stops awaiting approval; the
//     turn's decisions are applied to the conversation it stopped with
//     ([runtime.WithDecisions]) and the run goes on. The expectations see
//     an approved call once and no denied one; a pending call of a tool
//     with no decision fails the test.
//
// The compiler checks tests like agents, as package project asks it to
// ([project.CheckText] with the programs a file's tests may use): the
// agent, tools, arguments, argument values against the tools' schemas,
// and the matchers against the arguments' types.
//
// # Entry points
//
//   - [Load] reads and checks the packages of test files, with the agent
//     file a _test.gram file is named after ([schema.SubjectPath]).
//   - [Runner] runs tests: [Runner.RunAll] runs them in parallel, each
//     repeated [Runner.Repeat] times and passing when at least
//     [Runner.PassRate] of its runs pass, giving [Result]s.
//   - [Evaluate] checks one turn's [runtime.Response] against a
//     [schema.Turn]'s expectations, without a model.
//   - [WriteText], [WriteJSON], [WriteJUnit] and [WriteTAP] report results,
//     each test's usage and cost ([Result.Usage], [Result.CostUSD]: every
//     model call of its runs, judges and sub-agents included, priced by
//     the prices of [Runner.Setup]) and the suite's sums ([Summarize]).
//
// # Cassettes
//
// A cassette is a [replay.Recording] of every model request and response
// of one run of one test, the judge's and those of the agents the tested
// agent calls as tools or hands off to included (each through its own
// provider's client; see [Job.Program]), API keys redacted. Its path
// is CASSETTES/STEM/TEST.json, where STEM is the test file's name without
// .gram and CASSETTES is the cassettes directory beside the file (or
// [Runner.Cassettes], or the bindings file's of [Runner.Setup]). [ModeRecord] records them, [ModeReplay] answers from
// them with no network, and [ModeAuto] replays a test whose cassette exists
// and runs the others against the model. Two tests whose names give the
// same path (they differ in characters a file name cannot hold, or in case)
// are errors rather than sharing a cassette. A test recorded with
// [Runner.Repeat] above 1 keeps the cassette of its first run that passed
// (of its first run, said in [Result.CassetteNote], when none did).
package agenttest
