package extract

// Every prompt and schema mnemo sends to an LLM lives in this file. The
// schemas keep to what OpenAI's strict structured outputs accept (every
// property required, no additional properties, no numeric or length
// bounds): ranges are enforced by the code that reads the answers. A
// change of wording or schema bumps PromptVersion, which is recorded with
// each stored document (metadata "extractor") so a re-extraction can
// tell what produced a fact.

// PromptVersion names the current prompts and schemas.
const PromptVersion = "extract-v1"

// extractSystem is the system prompt of fact extraction.
const extractSystem = `You extract long-term memories from content an AI agent has seen or heard.

Return every atomic fact worth remembering weeks later: one self-contained statement per fact, in the third person, with names instead of pronouns ("Alice moved to Lisbon in May 2024", not "she moved there"). Skip greetings, filler and questions that state nothing. Do not invent anything the content does not say.

For each fact give:
- text: the statement.
- kind: "experience" for what the speaker or the agent did, lived or felt; "world" for facts about the world or other people.
- category: one of personal, project, decision, preference, event, contact, technical.
- confidence: 0..1, how sure the content makes the fact (hedged or second-hand: lower).
- importance: 0..1, how much it matters to remember (life events, decisions, preferences: high; trivia: low).
- sensitivity: "sensitive" for health, finances, sexuality, religion, politics, credentials or legal matters; "private" for other personal details; else "open".
- speaker: who stated it, as named in the content ("" if unknown).
- message: the number in brackets of the message it comes from (0 for plain text).
- evidence: a short verbatim quote of the content that supports it.
- occurred_start / occurred_end: when it happened or held true, as absolute ISO 8601 dates (YYYY-MM-DD, or YYYY-MM, or YYYY) resolved against the time of the message ("yesterday" said on 2024-05-08 is 2024-05-07); "" when the content gives no time.
- entities: the named things it is about: name as written in full, type (person, organization, place, project, topic, event, promise, emotion, decision, question, relationship, habit, technology), confidence 0..1. Use the speaker's name for "I"/"me".
- relations: typed edges between two of its entities: subject and object as entity names, predicate in snake_case (works_at, lives_in, likes, prefers, uses, manages, knows, member_of, owns, …), confidence 0..1.
- causes: links to other facts of this answer by their 0-based index: kind causes, caused_by, enables or prevents.`

// extractSchema is the JSON Schema of an extraction answer.
const extractSchema = `{
  "type": "object",
  "additionalProperties": false,
  "required": ["facts"],
  "properties": {
    "facts": {
      "type": "array",
      "items": {
        "type": "object",
        "additionalProperties": false,
        "required": ["text", "kind", "category", "confidence", "importance", "sensitivity", "speaker", "message", "evidence", "occurred_start", "occurred_end", "entities", "relations", "causes"],
        "properties": {
          "text": {"type": "string"},
          "kind": {"type": "string", "enum": ["world", "experience"]},
          "category": {"type": "string", "enum": ["personal", "project", "decision", "preference", "event", "contact", "technical"]},
          "confidence": {"type": "number"},
          "importance": {"type": "number"},
          "sensitivity": {"type": "string", "enum": ["open", "private", "sensitive"]},
          "speaker": {"type": "string"},
          "message": {"type": "integer"},
          "evidence": {"type": "string"},
          "occurred_start": {"type": "string"},
          "occurred_end": {"type": "string"},
          "entities": {
            "type": "array",
            "items": {
              "type": "object",
              "additionalProperties": false,
              "required": ["name", "type", "confidence"],
              "properties": {
                "name": {"type": "string"},
                "type": {"type": "string", "enum": ["person", "organization", "place", "project", "topic", "event", "promise", "emotion", "decision", "question", "relationship", "habit", "technology"]},
                "confidence": {"type": "number"}
              }
            }
          },
          "relations": {
            "type": "array",
            "items": {
              "type": "object",
              "additionalProperties": false,
              "required": ["subject", "predicate", "object", "confidence"],
              "properties": {
                "subject": {"type": "string"},
                "predicate": {"type": "string"},
                "object": {"type": "string"},
                "confidence": {"type": "number"}
              }
            }
          },
          "causes": {
            "type": "array",
            "items": {
              "type": "object",
              "additionalProperties": false,
              "required": ["fact", "kind"],
              "properties": {
                "fact": {"type": "integer"},
                "kind": {"type": "string", "enum": ["causes", "caused_by", "enables", "prevents"]}
              }
            }
          }
        }
      }
    }
  }
}`

// judgeSystem is the system prompt of conflict classification.
const judgeSystem = `You keep an agent's memory true as the world changes. You get NEW facts, each followed by EXISTING facts from memory that resemble it. For each new fact decide:
- "new": it adds information; the existing facts stay true.
- "duplicate": an existing fact already says the same; nothing to add.
- "update": it replaces an existing fact because things changed (a new job, a new favourite, a switched tool).
- "contradiction": it cannot be true together with an existing fact, and the new one should win.
For duplicate, update and contradiction, name the existing fact's id. Answer once per new fact.`

// judgeSchema is the JSON Schema of a conflict classification answer.
const judgeSchema = `{
  "type": "object",
  "additionalProperties": false,
  "required": ["decisions"],
  "properties": {
    "decisions": {
      "type": "array",
      "items": {
        "type": "object",
        "additionalProperties": false,
        "required": ["fact", "action", "existing", "reason"],
        "properties": {
          "fact": {"type": "integer"},
          "action": {"type": "string", "enum": ["new", "duplicate", "update", "contradiction"]},
          "existing": {"type": "string"},
          "reason": {"type": "string"}
        }
      }
    }
  }
}`
