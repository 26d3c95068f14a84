/**
 * What each route accepts, decided on the normalised path (target.ts): the methods, and whether it is a scrape
 * (counted by the scrape cap). The guard and the router read this one table, so no spelling of a path reaches a
 * route without its rules.
 */
export interface RouteRule {
  readonly methods: readonly string[];
  /** Answers from prepared state at some cost (render, evaluation): counted by the scrape cap. */
  readonly scrape: boolean;
}

const READ: readonly string[] = ['GET', 'HEAD'];

export const ROUTE_RULES: Readonly<Record<string, RouteRule>> = {
  '/metrics': { methods: READ, scrape: true },
  '/probe': { methods: READ, scrape: true },
  '/sd': { methods: READ, scrape: true },
  '/health': { methods: READ, scrape: true },
  '/-/healthy': { methods: READ, scrape: false },
  '/-/ready': { methods: READ, scrape: false },
  '/-/reload': { methods: ['POST'], scrape: false },
  '/': { methods: READ, scrape: false },
};

export function ruleOf(path: string): RouteRule | undefined {
  return Object.hasOwn(ROUTE_RULES, path) ? ROUTE_RULES[path] : undefined;
}
