/** Word lists the seed generator builds names and text from. */
export const FIRST_NAMES = [
  'Ada', 'Alan', 'Amara', 'Ana', 'Arjun', 'Beatriz', 'Ben', 'Chen', 'Chloe', 'Dario', 'Diana', 'Elif',
  'Emeka', 'Emma', 'Farah', 'Felix', 'Grace', 'Hana', 'Hugo', 'Ines', 'Ivan', 'Jamal', 'Julia', 'Kai',
  'Kenji', 'Lara', 'Liam', 'Lucia', 'Mai', 'Marco', 'Maya', 'Nadia', 'Noah', 'Olga', 'Omar', 'Priya',
  'Rosa', 'Sami', 'Sofia', 'Tariq', 'Uma', 'Viktor', 'Wen', 'Yara', 'Yusuf', 'Zoe',
] as const;

export const LAST_NAMES = [
  'Adeyemi', 'Almeida', 'Bauer', 'Becker', 'Chen', 'Costa', 'Dubois', 'Eriksson', 'Fischer', 'Garcia',
  'Haddad', 'Hoffmann', 'Ito', 'Jensen', 'Kim', 'Kowalski', 'Lambert', 'Lopez', 'Martin', 'Meyer',
  'Moreau', 'Nakamura', 'Nguyen', 'Novak', 'Okafor', 'Olsen', 'Patel', 'Petrov', 'Quinn', 'Rossi',
  'Santos', 'Schmidt', 'Silva', 'Singh', 'Tanaka', 'Torres', 'Ueda', 'Vargas', 'Weber', 'Yilmaz', 'Zhang',
] as const;

export const WORDS = [
  'api', 'cache', 'query', 'index', 'latency', 'schema', 'request', 'response', 'token', 'service',
  'design', 'review', 'deploy', 'release', 'metric', 'trace', 'log', 'build', 'test', 'feature',
  'simple', 'fast', 'stable', 'careful', 'small', 'clear', 'robust', 'steady', 'lazy', 'eager',
  'the', 'a', 'of', 'and', 'with', 'for', 'about', 'without', 'under', 'over',
  'writes', 'reads', 'scales', 'fails', 'retries', 'waits', 'returns', 'stores', 'checks', 'runs',
  'database', 'server', 'client', 'team', 'user', 'order', 'product', 'page', 'cursor', 'batch',
] as const;

export const PRODUCT_ADJECTIVES = [
  'Rustic', 'Sleek', 'Ergonomic', 'Compact', 'Durable', 'Handmade', 'Lightweight', 'Modern', 'Classic',
  'Premium', 'Portable', 'Smart', 'Vintage', 'Wireless', 'Refined', 'Sturdy', 'Elegant', 'Practical',
] as const;

export const PRODUCT_MATERIALS = [
  'Steel', 'Wooden', 'Cotton', 'Leather', 'Ceramic', 'Granite', 'Bamboo', 'Plastic', 'Rubber', 'Glass',
  'Wool', 'Aluminium', 'Copper', 'Linen', 'Concrete', 'Marble',
] as const;

export const PRODUCT_NOUNS = [
  'Chair', 'Table', 'Lamp', 'Keyboard', 'Mouse', 'Bottle', 'Backpack', 'Jacket', 'Kettle', 'Mug',
  'Notebook', 'Pen', 'Shoes', 'Hat', 'Clock', 'Speaker', 'Headphones', 'Blanket', 'Knife', 'Skillet',
  'Plant Pot', 'Desk', 'Shelf', 'Wallet', 'Umbrella', 'Bicycle Bell', 'Yoga Mat', 'Towel',
] as const;
