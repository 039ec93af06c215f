// The condition language's user documentation (Markdown). libs/workflow-graph/README.md carries it verbatim.

export const CONDITION_LANGUAGE_DOC = `### Edge conditions

An edge's \`condition\` is a small expression. It is never run as code: it is parsed and evaluated
by the service. An edge with no condition (\`null\`) is the default.

**Names**: \`reply\` (the last agent reply, a string), \`stage\` (the current stage, a string),
\`files\` (the workspace file paths, a list of strings).

**Literals**: \`"text"\` or \`'text'\` (escapes \`\\\\\` \`\\"\` \`\\'\` \`\\n\` \`\\r\` \`\\t\` \`\\uXXXX\`),
numbers (\`3\`, \`-2\`, \`0.5\`), \`true\`, \`false\`, \`null\`. There are no list literals.

**Operators**, loosest first: \`||\` / \`or\`; \`&&\` / \`and\`; \`!\` / \`not\`;
\`==\` \`!=\` \`<\` \`<=\` \`>\` \`>=\`; parentheses. \`not stage == "test"\` means \`not (stage == "test")\`.
Comparisons cannot be chained. \`==\` and \`!=\` compare strictly (\`1 == "1"\` is false); \`<\` and
friends compare two numbers or two strings and are false for anything else.

**Functions**:

| function | result |
|---|---|
| \`contains(x, y)\` | \`y\` is a substring of the string \`x\`, or an element of the list \`x\` (case-sensitive) |
| \`icontains(x, y)\` | the same, ignoring case |
| \`exists(path)\` | \`path\` is a workspace file, or a folder holding one (\`exists("docs")\`) |
| \`starts_with(s, p)\`, \`ends_with(s, p)\` | string prefix / suffix test |
| \`lower(s)\`, \`upper(s)\` | the string in lower / upper case |
| \`len(x)\` | length of a string or a list |
| \`matches(s, pattern)\` | \`s\` matches the regular expression \`pattern\` (JavaScript syntax, at most 200 characters; only the first 100,000 characters of \`s\` are searched) |

A function given the wrong kind of value is false (\`lower\`, \`upper\` and \`len\` give \`null\`);
it never stops the turn.

**Truth**: \`false\`, \`null\`, \`0\`, \`""\` and an empty list are false; everything else is true.

**Examples**: \`contains(reply, "APPROVED")\`, \`exists("docs/prd.md") and not icontains(reply, "todo")\`,
\`len(files) >= 3 || stage == "test"\`, \`matches(reply, "^score: [4-5]")\`.

Limits: 2,000 characters and 64 levels of nesting. Unknown names, unknown functions and a wrong
number of arguments are errors when the graph is saved.
`;
