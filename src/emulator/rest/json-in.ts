/**
 * Request-body JSON as RouterOS reads it (spec §2.1): ECMA-404, plus octal (`017`) and hexadecimal
 * (`0x1F`) number literals, and no exponents. JSON.parse cannot do either, so this is a small
 * recursive-descent parser. The result is `unknown`; callers validate it.
 */
import { badRequest } from './errors.js';
import type { RestError } from './errors.js';

class Parser {
  #pos = 0;

  constructor(private readonly text: string) {}

  parseDocument(): unknown {
    const value = this.value();
    this.ws();
    if (this.#pos < this.text.length) throw this.fail('unexpected data after the JSON value');
    return value;
  }

  private fail(what: string): RestError {
    return badRequest(`JSON parse error: ${what} at offset ${this.#pos}`);
  }

  private ws(): void {
    while (this.#pos < this.text.length && ' \t\r\n'.includes(this.text[this.#pos] as string)) this.#pos++;
  }

  private value(): unknown {
    this.ws();
    const c = this.text[this.#pos];
    if (c === '{') return this.object();
    if (c === '[') return this.array();
    if (c === '"') return this.string();
    if (c === '-' || (c !== undefined && c >= '0' && c <= '9')) return this.number();
    for (const [word, value] of [['true', true], ['false', false], ['null', null]] as const) {
      if (this.text.startsWith(word, this.#pos)) {
        this.#pos += word.length;
        return value;
      }
    }
    throw this.fail('unexpected character');
  }

  private object(): Record<string, unknown> {
    const out: Record<string, unknown> = {};
    this.#pos++;
    this.ws();
    if (this.text[this.#pos] === '}') {
      this.#pos++;
      return out;
    }
    for (;;) {
      this.ws();
      if (this.text[this.#pos] !== '"') throw this.fail('expected a property name');
      const key = this.string();
      this.ws();
      if (this.text[this.#pos] !== ':') throw this.fail("expected ':'");
      this.#pos++;
      // An own property whatever the key, as JSON.parse makes it: `out[key] =` would set the prototype for
      // `__proto__` (or drop a non-object value) instead of keeping what the client sent.
      Object.defineProperty(out, key, { value: this.value(), writable: true, enumerable: true, configurable: true });
      this.ws();
      const c = this.text[this.#pos++];
      if (c === '}') return out;
      if (c !== ',') throw this.fail("expected ',' or '}'");
    }
  }

  private array(): unknown[] {
    const out: unknown[] = [];
    this.#pos++;
    this.ws();
    if (this.text[this.#pos] === ']') {
      this.#pos++;
      return out;
    }
    for (;;) {
      out.push(this.value());
      this.ws();
      const c = this.text[this.#pos++];
      if (c === ']') return out;
      if (c !== ',') throw this.fail("expected ',' or ']'");
    }
  }

  private string(): string {
    const start = this.#pos;
    this.#pos++;
    for (;;) {
      const c = this.text[this.#pos];
      if (c === undefined) throw this.fail('unterminated string');
      if (c === '\\') this.#pos += 2;
      else if (c === '"') break;
      else this.#pos++;
    }
    this.#pos++;
    try {
      // The slice is a complete JSON string literal, so the standard decoder handles escapes.
      return JSON.parse(this.text.slice(start, this.#pos)) as string;
    } catch {
      this.#pos = start;
      throw this.fail('invalid string');
    }
  }

  private number(): number {
    const m = /^(-?)(0[xX][0-9a-fA-F]+|0[0-7]+|0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)?/.exec(
      this.text.slice(this.#pos),
    );
    if (!m) throw this.fail('invalid number');
    const [literal, sign, digits = '', fraction, exponent] = m;
    if (exponent !== undefined) throw this.fail('numbers with exponent are not supported');
    const next = this.text[this.#pos + literal.length];
    if (next !== undefined && /[0-9a-zA-Z.]/.test(next)) throw this.fail('invalid number');
    this.#pos += literal.length;
    let magnitude: number;
    if (/^0[xX]/.test(digits)) magnitude = parseInt(digits.slice(2), 16);
    else if (digits.length > 1 && digits.startsWith('0')) magnitude = parseInt(digits.slice(1), 8);
    else magnitude = Number(digits + (fraction ?? ''));
    if (fraction !== undefined && !/^[1-9]|^0$/.test(digits)) throw this.fail('invalid number');
    return sign === '-' ? -magnitude : magnitude;
  }
}

export function parseRequestJson(text: string): unknown {
  return new Parser(text).parseDocument();
}
