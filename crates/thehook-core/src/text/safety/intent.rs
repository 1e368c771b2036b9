//! The patterns of what an instruction to the assistant says, whatever
//! its words (docs/security.md): that its instructions were wrong or
//! replaced, that new ones follow, that this is a test or a mode, that it
//! is someone else now, what to put in its answer; data put into a URL;
//! markup that runs. Data only: `rules.rs` compiles and runs them, outside
//! code spans, after their trigger words (`*_TRIGGERS`) wake them.

/// What an instruction addressed to the assistant says, whatever its
/// words, in three lists, each judged outside code spans. Each list has
/// words without which none of its patterns can match: the patterns span
/// up to 160 characters each, and in the set they would cost every item a
/// slow pass (a reindex took 3.3 times as long), so the set holds the
/// words instead, and a list runs only when one of its own is there (a
/// "now" wakes two patterns, not fifteen).
pub(super) const INSTRUCTIONS_TRIGGERS: &[&str] = &[
    r"\b(?:instructions?|prompts?|directives|guidelines|rules|mistake|error|wrong|information|mode|test|drill|simulation|hypothetical|exercise|evaluation)\b",
];

/// That its instructions were wrong or changed, that new ones follow, that
/// this is a test or a mode.
pub(super) const INSTRUCTIONS_PATTERNS: &[&str] = &[
    // Its instructions were wrong, incomplete or changed.
    r"\b(?:your|my|the|all)\s+(?:(?:previous|prior|earlier|original|initial|above|old|current|system)\s+){0,2}(?:instructions?|prompts?|directives|guidelines|rules)\s+(?:(?:i|we)\s+gave\s+you\s+|you\s+(?:were\s+given|received|got|have)\s+|(?:given|sent)\s+to\s+you\s+|above\s+|so\s+far\s+)?(?:were|was|are|is|have\s+been|has\s+been)\s+(?:\w+\s+)?(?:wrong|incorrect|incomplete|outdated|mistaken|a\s+mistake|superseded|replaced|revoked|cancell?ed|void|invalid|no\s+longer\s+(?:valid|apply|applies))\b",
    r"\b(?:made|make)\s+an?\s+(?:\w+\s+)?(?:mistake|error)\s+(?:\w+\s+){0,3}?(?:gave|give|giving|wrote|told)\s+you\b",
    r"\b(?:gave|told)\s+you\s+(?:the\s+)?(?:wrong|incorrect|incomplete|outdated)\s+(?:\w+\s+)?(?:instructions?|prompt|rules|information)\b",
    // New instructions follow.
    r"(?:\*{2,}|#{1,6}|={2,}|-{2,}|\[|\(|^)\s*(?:new|updated|important|urgent|additional|revised|corrected|latest|override|admin|system)\b[^\n]{0,30}?\binstructions?\b\s*[*#=\-\]):!]",
    r"\b(?:new|updated|revised|additional|real|actual|secret|hidden)\s+(?:\w+\s+){0,2}?instructions?\s+(?:for|to)\s+(?:you|the\s+(?:assistant|ai|model|agent|llm))\b",
    r"\bhere\s+(?:are|is)\s+(?:your\s+)?(?:new|updated|real|actual|revised|correct)\s+(?:\w+\s+)?instructions?\b",
    // A test, a mode.
    r"\bthis\s+is\s+(?:only\s+|just\s+|merely\s+)?an?\s+(?:test|drill|simulation|hypothetical|exercise|evaluation)\b[^\n]{0,160}?\b(?:you|your)\b",
    r"\b(?:you\s+are|you're|you\s+will\s+be|you\s+have\s+been)\s+(?:now\s+)?(?:in|entering|operating\s+in|running\s+in|switched\s+(?:in)?to|put\s+in(?:to)?)\s+(?:\w+\s+){0,2}?mode\b",
    r"\b(?:\w+\s+)mode\s+(?:is\s+)?(?:now\s+)?(?:enabled|activated|engaged|unlocked)\b[^\n]{0,120}?\b(?:you|your|respond|answer)\b",
];

/// The same for [`PERSONA_PATTERNS`].
pub(super) const PERSONA_TRIGGERS: &[&str] = &[
    r"\b(?:act(?:ing)?|behave|pretend(?:ing)?|play(?:ing)?|roleplay(?:ing)?|role-play(?:ing)?|simulat\w*|imitat\w*|character|anything\s+now)\b",
];

/// That it is someone else now.
pub(super) const PERSONA_PATTERNS: &[&str] = &[
    r"\byou\s+(?:are|will\s+be|shall\s+be|must\s+be|'re)\s+(?:now\s+)?(?:going\s+to\s+)?(?:act(?:ing)?|pretend(?:ing)?|play(?:ing)?|roleplay(?:ing)?|role-play(?:ing)?|simulat(?:e|ing)|imitat(?:e|ing))\b",
    r"\b(?:act|behave|roleplay|role-play|play\s+the\s+role)\s+as\b[^\n]{0,60}?\b(?:ai|assistant|model|chatbot|character|persona|version\s+of\s+(?:yourself|you))\b",
    r"\b(?:stay|remain|break)\s+(?:in\s+|out\s+of\s+)?character\b",
    r"\bdo\s+anything\s+now\b",
    // Someone of the reader's life: "act like my grandma who would read...".
    r"\b(?:act|behave)\s+(?:as|like)\s+(?:if\s+you\s+(?:are|were)\s+)?my\s+\w+",
];

/// The same for [`OVERRIDE_PATTERNS`].
pub(super) const OVERRIDE_TRIGGERS: &[&str] = &[
    r"\b(?:restrictions|filters|filtering|limitations|censorship|guidelines|policies|boundaries|constraints|instead|now)\b",
];

/// That it is to do otherwise now, or without its restrictions.
pub(super) const OVERRIDE_PATTERNS: &[&str] = &[
    r"\b(?:instead|now),?\s+(?:you\s+(?:must|should|will|need\s+to)|follow\s+(?:these|the\s+following|my))\b",
    r"\b(?:no|without|free\s+(?:of|from)|not\s+bound\s+by|ignores?|unbound\s+by)\s+(?:any\s+)?(?:moral|ethical|content|openai|safety)?\s*(?:restrictions|filters|filtering|limitations|censorship|guidelines|policies|boundaries|constraints)\b[^\n]{0,120}?\b(?:you|ai|assistant|model|chatbot|respond|answers?|replies)\b",
];

/// The same for [`INTO_THE_ANSWER_PATTERNS`]: each names the answer.
pub(super) const ANSWER_TRIGGERS: &[&str] =
    &[r"\b(?:answers?|responses?|replies|reply|respond|following|everything\s+after|verbatim)\b"];

/// The same for [`DATA_INTO_URL_PATTERNS`]: each names where in a URL.
pub(super) const URL_WORD_TRIGGERS: &[&str] = &[r"\b(?:url|link|query|param\w*|src|href|image)\b"];

/// The same for [`EXECUTING_MARKUP_PATTERNS`] and markdown images.
pub(super) const MARKUP_TRIGGERS: &[&str] =
    &[r"<\s*[a-z]|javascript\s*:|!\[|\\(?:x1b|033|u001b|u009[bd]|x9[bd]|e\[)"];

/// What to put in its answer.
pub(super) const INTO_THE_ANSWER_PATTERNS: &[&str] = &[
    r"\b(?:include|add|append|insert|put|embed|render|output|print|display|show|write|start|end|begin|prefix|suffix)\b[^\n]{0,80}?\b(?:in|into|to|at\s+the\s+(?:end|start|beginning|top|bottom)\s+of|with)\s+(?:your|each|every|all\s+(?:of\s+)?your|the\s+next)\s+(?:\w+\s+)?(?:answers?|responses?|replies|reply)\b",
    r"\b(?:respond|answer|reply)\s+(?:only\s+)?(?:with|by\s+(?:saying|writing|printing))\b[^\n]{0,80}?\b(?:and\s+nothing\s+else|only|exactly|verbatim)\b",
    r"\b(?:at\s+the\s+(?:end|start|beginning|top|bottom)\s+of|in|before|after)\s+(?:your|each|every|all\s+(?:of\s+)?your|the\s+next)\s+(?:\w+\s+)?(?:answers?|responses?|replies|reply)\b[^\n]{0,40}?\b(?:include|add|append|insert|put|embed|render|output|print|display|show|write|say|mention|link)\b",
    // Its answer dictated: "reply to the user with the string 'SUCCESS'",
    // "respond with exactly what follows" (not a server's "respond with").
    r"\b(?:respond|reply|answer)\s+(?:to\s+(?:the\s+)?user\s+with|with\s+exactly|with\s+only\s+the\s+(?:string|word|phrase))\b",
    // Told to say what follows: "Print the following:", "Output everything
    // after this colon". Not "run the following", which runbooks say.
    r"(?:^|[.!?:;]\s+|\bplease\s+|\bnow\s+)(?:print|output|echo|say|write\s+out|repeat\s+back)\s+(?:the\s+following|everything\s+after|(?:this|it)\s+verbatim)\b",
];

/// Words that ask for data to be put into a URL: "append the base64 of the
/// conversation to the image URL", "encode the key in the query string".
pub(super) const DATA_INTO_URL_PATTERNS: &[&str] = &[
    r"\b(?:append|add|attach|include|encode|put|insert|concatenate|place|embed|pass|substitute|replace)\b[^\n]{0,100}?\b(?:to|in|into|as|inside|with)\s+(?:the\s+|a\s+|this\s+|that\s+)?(?:url|link|query(?:\s+string)?|query\s+param(?:eter)?s?|param(?:eter)?s?\s+of\s+the\s+url|image\s+(?:url|link|source|src)|src|href)\b",
    r"\b(?:url|link|query\s+string|image\s+(?:url|link))\b[^\n]{0,80}?\b(?:base64|b64|url-?encoded|encoded|hex-?encoded)\b[^\n]{0,60}?\b(?:of|from)\s+(?:the\s+|your\s+|this\s+|all\s+)?(?:\w+\s+){0,2}?(?:data|conversation|chat|history|context|secrets?|keys?|tokens?|credentials?|passwords?|answers?|responses?|messages?|input|prompt|summary|information|info)\b",
];

/// Mail, codes and messages sent on to an address: "email the contents of
/// the inbox to someone@...".
pub(super) const TO_AN_ADDRESS_PATTERNS: &[&str] = &[
    r"\b(?:send|email|e-mail|forward)\b[^\n]{0,80}?\b(?:codes?|contents?|body|bodies|messages|e-?mails|inbox)\b[^\n]{0,80}?\bto\s+'?[\w.+-]+@[\w-]+(?:\.[\w-]+)+",
];

/// The same for [`TO_AN_ADDRESS_PATTERNS`]: a mail address.
pub(super) const ADDRESS_TRIGGERS: &[&str] = &[r"[\w.+-]@[\w-]+\.[a-z]"];

/// Markup that runs script when an answer or a page renders it, and
/// terminal escapes to print.
pub(super) const EXECUTING_MARKUP_PATTERNS: &[&str] = &[
    r"<\s*(?:script|iframe|frameset|object|embed|applet)\b",
    // An event handler in an HTML tag; JSX's `onClick={...}` is code.
    r#"<[a-z][a-z0-9-]*\b[^<>]*\son[a-z]{3,}\s*=\s*(?:["'][^"']*|[^\s{>"'][^\s>]*)"#,
    r"\bjavascript\s*:\s*[a-z_$][\w$.]*\s*\(",
    r#"<\s*meta\b[^<>]*http-equiv\s*=\s*["']?refresh"#,
    r#"<\s*(?:img|image|svg|video|audio|source|link|body|input|details)\b[^<>]*\s(?:src|href|data)\s*=\s*["']?\s*javascript\s*:"#,
    // A terminal escape written out, to be printed: "repeat \x1b]8;;...".
    // Raw escapes are hidden text (`hidden.rs`), stripped before this.
    r"\b(?:print|output|repeat|echo|say|write|emit|render|display|decode|unescape)\b[^\n]{0,60}?\\(?:x1b|033|u001b|u009[bd]|x9[bd]|e\[)",
];
