-- The public catalogue: areas, property types, listings with photos, team profiles and services.

create table areas (
  id uuid primary key default gen_random_uuid(),
  company_id uuid not null references companies (id) on delete cascade,
  kind text not null check (kind in ('city', 'area', 'project')),
  parent_id uuid references areas (id) on delete set null,
  slug_en text not null,
  slug_ar text,
  name jsonb not null,
  position integer not null default 0,
  unique (company_id, slug_en)
);
create unique index areas_slug_ar on areas (company_id, slug_ar) where slug_ar is not null;

create table property_types (
  company_id uuid not null references companies (id) on delete cascade,
  value text not null,
  name jsonb not null,
  position integer not null default 0,
  primary key (company_id, value)
);

create table listings (
  id uuid primary key default gen_random_uuid(),
  company_id uuid not null references companies (id) on delete cascade,
  slug_en text not null,
  slug_ar text,
  listing_type text not null check (listing_type in ('sale', 'lease', 'holiday_home')),
  status text not null check (status in ('draft', 'published', 'withdrawn')),
  title jsonb not null,
  description jsonb not null default '{}'::jsonb,
  price numeric(14, 2),
  price_period text check (price_period in ('total', 'year', 'month', 'night')),
  property_type text,
  bedrooms integer check (bedrooms >= 0),
  bathrooms integer check (bathrooms >= 0),
  size_sqm numeric(10, 2),
  max_guests integer,
  city_id uuid references areas (id) on delete set null,
  area_id uuid references areas (id) on delete set null,
  project_id uuid references areas (id) on delete set null,
  completion text check (completion in ('ready', 'off_plan')),
  featured boolean not null default false,
  sort_order integer not null default 0,
  latitude double precision,
  longitude double precision,
  location_precision text check (location_precision in ('exact', 'approximate')),
  published_at timestamptz,
  created_at timestamptz not null default now(),
  updated_at timestamptz not null default now(),
  unique (company_id, slug_en),
  check ((latitude is null) = (longitude is null)),
  check (latitude is null or location_precision is not null)
);
create unique index listings_slug_ar on listings (company_id, slug_ar) where slug_ar is not null;
create index listings_published on listings (company_id, listing_type, published_at desc, id desc)
  where status = 'published';
create index listings_featured on listings (company_id, featured desc, published_at desc, id desc)
  where status = 'published';
create index listings_sort_order on listings (company_id, sort_order, id) where status = 'published';

create table listing_photos (
  id uuid primary key default gen_random_uuid(),
  listing_id uuid not null references listings (id) on delete cascade,
  position integer not null,
  storage_key text not null,
  alt jsonb not null default '{}'::jsonb,
  ready boolean not null default true,
  unique (listing_id, position)
);

create table team_profiles (
  id uuid primary key default gen_random_uuid(),
  company_id uuid not null references companies (id) on delete cascade,
  name text not null,
  role jsonb not null default '{}'::jsonb,
  bio jsonb not null default '{}'::jsonb,
  photo_url text,
  email text,
  phone text,
  languages text[] not null default '{}',
  published boolean not null default true,
  position integer not null default 0,
  created_at timestamptz not null default now()
);
create index team_profiles_company on team_profiles (company_id, position);

create table services (
  company_id uuid not null references companies (id) on delete cascade,
  key text not null check (key ~ '^[a-z0-9][a-z0-9_-]*$'),
  name jsonb not null,
  kind text not null,
  position integer not null default 0,
  primary key (company_id, key)
);
