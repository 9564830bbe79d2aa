"""Django settings for Fabric Planner, read from the environment.

Environment variables
---------------------
PRODUCTION
    ``1``/``true`` for a deployment: SECRET_KEY must be set, cookies are secure, HTTPS is
    enforced (HSTS, redirect) and static files are served from a hashed manifest.
SECRET_KEY
    Required in production. Locally ``make run`` generates one into ``.var/secret_key``.
DEBUG
    Off unless set to ``1``/``true``.
ALLOWED_HOSTS
    Comma-separated host names (default: loopback names only).
CSRF_TRUSTED_ORIGINS
    Comma-separated origins, for a deployment behind a proxy on another port or host.
DATABASE_URL
    Any URL dj-database-url understands (``postgres://postgres@127.0.0.1:5432/fabric``).
    Default: SQLite in ``.var/db.sqlite3``.
REDIS_URL
    Celery broker and, under its own key prefix, the cache (the outputs of immutable revisions).
    Default: kombu's filesystem transport in ``.var/broker`` (no server needed) and a cache
    per process.
DESIGN_MAX_GPUS
    Largest design the planner builds, in GPUs (default 2000000).
REQUEST_MAX_BYTES, DATA_UPLOAD_MAX_MEMORY_SIZE
    Largest upload request (multipart; default 10 MiB) and largest other request body (JSON,
    forms; default 5 MiB). Larger requests get 413 naming the limit.
LOGIN_FAILURE_LIMIT, LOGIN_COOLOFF_MINUTES
    Failed logins allowed per username and address (5) before login is locked for that pair
    for the cool-off (15 minutes after the last failure).
JOBS_MAX_CONCURRENT_PER_USER, JOBS_MAX_PER_MINUTE_PER_USER, JOBS_HEARTBEAT_TIMEOUT_S,
JOBS_MAX_ATTEMPTS, JOBS_HEARTBEAT_INTERVAL_S, JOBS_RECOVERY_INTERVAL_S, JOBS_QUEUED_RESEND_S,
JOBS_TIME_LIMIT_S
    Background jobs: queued + running jobs per user (4); job starts per user per minute (30,
    reused results not counted); seconds without a heartbeat after
    which a running job's worker is taken for lost (10); runs per job before it fails (3);
    heartbeat and stale-job sweep periods (timeout / 6 and timeout / 2); age after which a
    queued job whose task the broker lost is sent again (10); soft time limit of
    one run (3600 s).
"""

import os
import secrets
from datetime import timedelta
from pathlib import Path

import dj_database_url

BASE_DIR = Path(__file__).resolve().parents[2]
VAR_DIR = Path(os.environ.get("FABRIC_VAR_DIR", BASE_DIR / ".var"))


def env_bool(name: str, default: bool = False) -> bool:
    """Read a boolean environment variable (``1``, ``true``, ``yes``, ``on``)."""
    value = os.environ.get(name)
    if value is None or value == "":
        return default
    return value.strip().lower() in {"1", "true", "yes", "on"}


def env_list(name: str, default: str = "") -> list[str]:
    """Read a comma-separated environment variable into a list of stripped strings."""
    return [item.strip() for item in os.environ.get(name, default).split(",") if item.strip()]


def _local_secret_key() -> str:
    """Return the secret key kept in ``.var/secret_key``, creating it on first use."""
    path = VAR_DIR / "secret_key"
    if path.exists():
        return path.read_text().strip()
    VAR_DIR.mkdir(parents=True, exist_ok=True)
    key = secrets.token_urlsafe(50)
    path.write_text(key)
    path.chmod(0o600)
    return key


PRODUCTION = env_bool("PRODUCTION")
DEBUG = env_bool("DEBUG")

if PRODUCTION:
    SECRET_KEY = os.environ.get("SECRET_KEY", "")
    if len(SECRET_KEY) < 50:
        from django.core.exceptions import ImproperlyConfigured

        raise ImproperlyConfigured("PRODUCTION is set: SECRET_KEY must be set (50+ characters).")
else:
    SECRET_KEY = os.environ.get("SECRET_KEY") or _local_secret_key()

ALLOWED_HOSTS = env_list("ALLOWED_HOSTS", "127.0.0.1,localhost,[::1]")
CSRF_TRUSTED_ORIGINS = env_list("CSRF_TRUSTED_ORIGINS")

INSTALLED_APPS = [
    "django.contrib.admin",
    "django.contrib.auth",
    "django.contrib.contenttypes",
    "django.contrib.sessions",
    "django.contrib.messages",
    "django.contrib.humanize",
    "whitenoise.runserver_nostatic",
    "django.contrib.staticfiles",
    "rest_framework",
    "rest_framework.authtoken",
    "django_filters",
    "drf_spectacular",
    "drf_spectacular_sidecar",
    "axes",
    # Our apps, bottom up (tests/unit/test_migration_graph.py keeps the migrations so).
    "planner.teams",  # label "teams": the bottom rung (everything else points at it)
    "planner.audit",  # label "audit": every app above writes to it
    "inventory",
    "planner.designs",  # label "designs"
    "simulation",  # the jobs
    "planner.quotes",  # label "quotes"
    "planner.asbuilt",  # label "asbuilt"
    "planner",  # the glue: commands, template tags, the lower apps' hooks (no models)
]

MIDDLEWARE = [
    "django.middleware.security.SecurityMiddleware",
    "planner.project.security.ContentSecurityPolicyMiddleware",
    "planner.project.security.RequestSizeLimitMiddleware",  # 413 before anything reads the body
    "whitenoise.middleware.WhiteNoiseMiddleware",
    "django.contrib.sessions.middleware.SessionMiddleware",
    "django.middleware.common.CommonMiddleware",
    "django.middleware.csrf.CsrfViewMiddleware",
    "django.contrib.auth.middleware.AuthenticationMiddleware",
    "planner.project.middleware.LoginRequiredMiddleware",
    "planner.project.middleware.RequestTextMiddleware",  # NUL in query parameters; database errors
    "django.contrib.messages.middleware.MessageMiddleware",
    "django.middleware.clickjacking.XFrameOptionsMiddleware",
    "axes.middleware.AxesMiddleware",  # last: turns a locked-out login into its 429 page
]

ROOT_URLCONF = "planner.project.urls"
WSGI_APPLICATION = "planner.project.wsgi.application"
ASGI_APPLICATION = "planner.project.asgi.application"

TEMPLATES = [
    {
        "BACKEND": "django.template.backends.django.DjangoTemplates",
        "DIRS": [BASE_DIR / "templates"],
        "APP_DIRS": True,
        "OPTIONS": {
            "context_processors": [
                "django.template.context_processors.request",
                "django.contrib.auth.context_processors.auth",
                "django.contrib.messages.context_processors.messages",
            ],
        },
    },
]

# --- Database -------------------------------------------------------------------------------
DATABASES = {
    "default": dj_database_url.parse(
        os.environ.get("DATABASE_URL") or f"sqlite:///{VAR_DIR / 'db.sqlite3'}",
        conn_max_age=60,
        conn_health_checks=True,
    )
}
if DATABASES["default"]["ENGINE"] == "django.db.backends.sqlite3":
    DATABASES["default"]["CONN_MAX_AGE"] = 0
    # The web process and the worker share the file: wait for locks instead of failing.
    DATABASES["default"]["OPTIONS"] = {"timeout": 20, "transaction_mode": "IMMEDIATE"}
    # A file (not :memory:) so that a Celery worker in another process sees the test data;
    # one per test run (process id), so that two runs side by side do not share it.
    DATABASES["default"]["TEST"] = {"NAME": str(VAR_DIR / f"test-db-{os.getpid()}.sqlite3")}
DEFAULT_AUTO_FIELD = "django.db.models.BigAutoField"

# --- Auth -----------------------------------------------------------------------------------
AUTH_PASSWORD_VALIDATORS = [
    {"NAME": "django.contrib.auth.password_validation.UserAttributeSimilarityValidator"},
    {"NAME": "django.contrib.auth.password_validation.MinimumLengthValidator"},
    {"NAME": "django.contrib.auth.password_validation.CommonPasswordValidator"},
    {"NAME": "django.contrib.auth.password_validation.NumericPasswordValidator"},
]
# django-axes first: it refuses a login for a username + address pair locked after failures.
AUTHENTICATION_BACKENDS = [
    # axes' backend, skipped when there is no request
    "planner.project.auth_backends.LoginThrottleBackend",
    "django.contrib.auth.backends.ModelBackend",
]
# Failures are counted in the database (AccessAttempt rows), so the lock holds across web
# processes and machines; nothing here depends on a per-process cache.
AXES_FAILURE_LIMIT = int(os.environ.get("LOGIN_FAILURE_LIMIT", "5"))
AXES_COOLOFF_TIME = timedelta(minutes=float(os.environ.get("LOGIN_COOLOFF_MINUTES", "15")))
AXES_LOCKOUT_PARAMETERS = [["username", "ip_address"]]
AXES_RESET_ON_SUCCESS = True
AXES_LOCKOUT_CALLABLE = "planner.project.security.login_locked_out"
AXES_SENSITIVE_PARAMETERS = ["password", "csrfmiddlewaretoken"]
AXES_VERBOSE = False  # no start-up banner in every command and worker
LOGIN_URL = "login"
LOGIN_REDIRECT_URL = "home"
LOGOUT_REDIRECT_URL = "login"

LANGUAGE_CODE = "en-us"
TIME_ZONE = "UTC"
USE_I18N = True
USE_TZ = True

# --- Static files (whitenoise; the front-end bundle is built by npm into frontend/dist) -----
STATIC_URL = "static/"
STATIC_ROOT = BASE_DIR / "staticfiles"
STATIC_ROOT.mkdir(exist_ok=True)  # whitenoise scans it at start-up
STATICFILES_DIRS = [("app", BASE_DIR / "frontend" / "dist")]
STORAGES = {
    "default": {"BACKEND": "django.core.files.storage.FileSystemStorage"},
    "staticfiles": {
        "BACKEND": "whitenoise.storage.CompressedManifestStaticFilesStorage"
        if PRODUCTION
        else "django.contrib.staticfiles.storage.StaticFilesStorage"
    },
}
# Locally, serve straight from the app and frontend folders: no collectstatic step.
WHITENOISE_USE_FINDERS = not PRODUCTION
WHITENOISE_AUTOREFRESH = DEBUG
# The docs site (docs/mkdocs.yml's site_dir), served at /docs/ by planner/project/docs_site.py.
DOCS_SITE_DIR = Path(os.environ.get("DOCS_SITE_DIR", BASE_DIR / ".var" / "docs-site"))

# --- Uploads --------------------------------------------------------------------------------
# Bodies over these limits get 413 naming them
# (planner.project.security.RequestSizeLimitMiddleware):
# uploads (multipart) up to REQUEST_MAX_BYTES, any other body up to DATA_UPLOAD_MAX_MEMORY_SIZE.
DATA_UPLOAD_MAX_MEMORY_SIZE = int(os.environ.get("DATA_UPLOAD_MAX_MEMORY_SIZE", 5 * 1024 * 1024))
FILE_UPLOAD_MAX_MEMORY_SIZE = 5 * 1024 * 1024
CATALOG_IMPORT_MAX_BYTES = 8 * 1024 * 1024
# Above the catalog import cap, so a file just over that gets the import form's own message.
REQUEST_MAX_BYTES = int(os.environ.get("REQUEST_MAX_BYTES", 10 * 1024 * 1024))

# --- REST API -------------------------------------------------------------------------------
REST_FRAMEWORK = {
    "DEFAULT_AUTHENTICATION_CLASSES": [
        # Token first: an anonymous API request gets 401 with a WWW-Authenticate header.
        "rest_framework.authentication.TokenAuthentication",
        "rest_framework.authentication.SessionAuthentication",
    ],
    # Signed in, and no query parameter the operation does not document (a 400 naming it:
    # planner/project/api/parameters.py).
    "DEFAULT_PERMISSION_CLASSES": [
        "rest_framework.permissions.IsAuthenticated",
        "planner.project.api.parameters.KnownQueryParameters",
    ],
    # JSON within depth and text limits (planner/project/api/parsers.py); forms and uploads as
    # usual.
    "DEFAULT_PARSER_CLASSES": [
        "planner.project.api.parsers.LimitedJSONParser",
        "rest_framework.parsers.FormParser",
        "planner.project.api.parsers.PlainMultiPartParser",
    ],
    "DEFAULT_FILTER_BACKENDS": [
        "planner.project.api.filters.StrictFilterBackend",
        "rest_framework.filters.SearchFilter",
        "planner.project.api.filters.NullsLastOrderingFilter",
    ],
    "DEFAULT_PAGINATION_CLASS": "planner.project.api.pagination.StandardPagination",
    "PAGE_SIZE": 50,
    "DEFAULT_SCHEMA_CLASS": "drf_spectacular.openapi.AutoSchema",
    "EXCEPTION_HANDLER": "planner.project.api.exceptions.exception_handler",
}
SPECTACULAR_SETTINGS = {
    "TITLE": "Fabric Planner API",
    "DESCRIPTION": "Catalog, designs, jobs and outputs of Fabric Planner. Authenticate with a "
    "session (browser) or `Authorization: Token <key>`.",
    "VERSION": "1",
    "SERVE_INCLUDE_SCHEMA": False,
    "SERVE_PERMISSIONS": ["rest_framework.permissions.IsAuthenticated"],
    "SWAGGER_UI_DIST": "SIDECAR",
    "SWAGGER_UI_FAVICON_HREF": "SIDECAR",
    "REDOC_DIST": "SIDECAR",
    "COMPONENT_SPLIT_REQUEST": True,
    "POSTPROCESSING_HOOKS": [
        "drf_spectacular.hooks.postprocess_schema_enums",
        "planner.project.api.schema.document_error_responses",  # 400/401/403/404 where they happen
        "planner.project.api.schema.document_request_media_types",  # JSON where forms cannot say
    ],
    # One schema name per vocabulary shared by several fields.
    "ENUM_NAME_OVERRIDES": {
        "FormFactorEnum": "inventory.library.vocab.FORM_FACTORS",
        "TopEnum": "inventory.library.vocab.TOPS",
        "ConnectorEnum": "inventory.library.vocab.CONNECTORS",
        "CoolingEnum": "inventory.library.vocab.COOLING",
        "TopologyEnum": "inventory.library.vocab.TOPOLOGIES",
        "FiberTopologyEnum": "inventory.library.vocab.FIBER_TOPOLOGIES",
        "ServerKindEnum": "inventory.library.vocab.SERVER_KINDS",
        "PriceBookKindEnum": "inventory.models.prices.PriceBook.KIND_CHOICES",
        "JobKindEnum": "simulation.models.JobKindChoices",
        "AsBuiltCablingFormatEnum": "planner.asbuilt.services.CABLING_FORMATS",
        "JobStatusEnum": "simulation.models.JobStatusChoices",
        "TeamRoleEnum": "planner.teams.models.TeamRoleChoices",
        "DesignRevisionKindEnum": "planner.designs.models.DesignRevisionKindChoices",
        "DesignSharingEnum": "planner.designs.models.DesignSharingChoices",
    },
}

# --- Celery ---------------------------------------------------------------------------------
REDIS_URL = os.environ.get("REDIS_URL", "")
#: A secret that lets a monitor read /healthz's details (``Authorization: Bearer <token>``);
#: unset, only staff see them and everyone else gets up/down alone.
HEALTHZ_TOKEN = os.environ.get("HEALTHZ_TOKEN", "")
if REDIS_URL:
    CELERY_BROKER_URL = REDIS_URL
    # A broker that does not answer fails a job submission within seconds, not minutes.
    CELERY_BROKER_TRANSPORT_OPTIONS = {"visibility_timeout": 3600, "socket_connect_timeout": 5}
else:
    _broker_dir = VAR_DIR / "broker"
    for _sub in ("queue", "processed", "control"):
        (_broker_dir / _sub).mkdir(parents=True, exist_ok=True)
    CELERY_BROKER_URL = "filesystem://"
    CELERY_BROKER_TRANSPORT_OPTIONS = {
        "data_folder_in": str(_broker_dir / "queue"),
        "data_folder_out": str(_broker_dir / "queue"),
        "processed_folder": str(_broker_dir / "processed"),
        "control_folder": str(_broker_dir / "control"),
        "store_processed": False,
    }
# A broker outage of any length never stops a worker: it retries the connection for ever (the
# default gives up after 100 attempts), at start as after a loss, and keeps running its tasks.
CELERY_BROKER_CONNECTION_RETRY_ON_STARTUP = True
CELERY_BROKER_CONNECTION_RETRY = True
CELERY_BROKER_CONNECTION_MAX_RETRIES = None
CELERY_WORKER_CANCEL_LONG_RUNNING_TASKS_ON_CONNECTION_LOSS = False
CELERY_TASK_IGNORE_RESULT = True  # job state lives on the Job row, not in a result backend
CELERY_TASK_ACKS_LATE = True
CELERY_TASK_REJECT_ON_WORKER_LOST = True
CELERY_WORKER_PREFETCH_MULTIPLIER = 1
CELERY_TASK_DEFAULT_QUEUE = "default"
CELERY_TASK_ROUTES = {"simulation.*": {"queue": "default"}}
CELERY_WORKER_HIJACK_ROOT_LOGGER = False

# --- Jobs (simulation app) ------------------------------------------------------------------
# Read from the environment too, so that worker processes (and tests' workers) can be tuned.
JOBS_MAX_CONCURRENT_PER_USER = int(os.environ.get("JOBS_MAX_CONCURRENT_PER_USER", "4"))
# Jobs a user may start per minute (results reused from an identical run do not count).
JOBS_MAX_PER_MINUTE_PER_USER = int(os.environ.get("JOBS_MAX_PER_MINUTE_PER_USER", "30"))
# A running job whose heartbeat is older than this is re-run (or failed after MAX_ATTEMPTS).
# 10 s: a worker killed mid-job on another machine has its job running again within 15 s
# (timeout + half a recovery interval); on the same machine, at once (simulation.jobs.recovery).
JOBS_HEARTBEAT_TIMEOUT_S = float(os.environ.get("JOBS_HEARTBEAT_TIMEOUT_S", "10"))
JOBS_MAX_ATTEMPTS = int(os.environ.get("JOBS_MAX_ATTEMPTS", "3"))
# How often a running job's worker writes its heartbeat, and workers sweep for stale jobs.
JOBS_HEARTBEAT_INTERVAL_S = float(
    os.environ.get("JOBS_HEARTBEAT_INTERVAL_S", str(max(0.5, JOBS_HEARTBEAT_TIMEOUT_S / 6)))
)
JOBS_RECOVERY_INTERVAL_S = float(
    os.environ.get("JOBS_RECOVERY_INTERVAL_S", str(max(1.0, JOBS_HEARTBEAT_TIMEOUT_S / 2)))
)
# A queued job older than this whose task the broker no longer holds (lost with a Redis restart
# or never sent while it was down) is sent again by the recovery sweep.
JOBS_QUEUED_RESEND_S = float(os.environ.get("JOBS_QUEUED_RESEND_S", "10"))
JOBS_TIME_LIMIT_S = int(os.environ.get("JOBS_TIME_LIMIT_S", "3600"))

# --- Security -------------------------------------------------------------------------------
SECURE_CONTENT_TYPE_NOSNIFF = True
SECURE_REFERRER_POLICY = "same-origin"
SECURE_CROSS_ORIGIN_OPENER_POLICY = "same-origin"
X_FRAME_OPTIONS = "DENY"
# Scripts only from this site (no inline script, no eval: pages use data-* attributes and
# static bundles; Swagger UI loads its init script from a URL). Inline style attributes are
# allowed: templates and Swagger UI set a few.
CONTENT_SECURITY_POLICY = os.environ.get(
    "CONTENT_SECURITY_POLICY",
    "default-src 'self'; script-src 'self'; style-src 'self' 'unsafe-inline'; "
    "img-src 'self' data: blob:; font-src 'self' data:; connect-src 'self'; "
    "object-src 'none'; base-uri 'self'; form-action 'self'; frame-ancestors 'none'",
)
SESSION_COOKIE_HTTPONLY = True
if PRODUCTION:
    SECURE_PROXY_SSL_HEADER = ("HTTP_X_FORWARDED_PROTO", "https")
    SECURE_SSL_REDIRECT = env_bool("SECURE_SSL_REDIRECT", True)
    SECURE_HSTS_SECONDS = int(os.environ.get("SECURE_HSTS_SECONDS", "31536000"))
    SECURE_HSTS_INCLUDE_SUBDOMAINS = True
    SECURE_HSTS_PRELOAD = True
    SESSION_COOKIE_SECURE = True
    CSRF_COOKIE_SECURE = True
    # /healthz is probed over plain HTTP inside the cluster.
    SECURE_REDIRECT_EXEMPT = [r"^healthz$"]

LOGGING = {
    "version": 1,
    "disable_existing_loggers": False,
    "formatters": {"plain": {"format": "%(asctime)s %(levelname)s %(name)s: %(message)s"}},
    # Passwords, API tokens, session and CSRF values never reach a log line.
    "filters": {"redact_secrets": {"()": "planner.project.security.RedactSecretsFilter"}},
    "handlers": {
        "console": {
            "class": "logging.StreamHandler",
            "formatter": "plain",
            "filters": ["redact_secrets"],
        }
    },
    "root": {"handlers": ["console"], "level": os.environ.get("LOG_LEVEL", "INFO")},
    "loggers": {
        "django.db.backends": {"level": "INFO"},
        # fpdf2's font subsetting logs every glyph list of every PDF at INFO.
        "fontTools": {"level": "WARNING"},
    },
}

# --- Designs --------------------------------------------------------------------------------
# The largest design (in GPUs) the planner builds; larger specs are refused naming `servers`.
DESIGN_MAX_GPUS = int(os.environ.get("DESIGN_MAX_GPUS", "2000000"))

# --- Cache ----------------------------------------------------------------------------------
# What is derived from immutable revisions (planner.designs.cache) and other recomputable
# answers. With REDIS_URL, in Redis (beside the broker's keys, under their own prefix), so
# every web process shares one copy and a revision's outputs are computed once; a Redis
# outage makes them misses (planner.project.cache). Without it, each process keeps its own.
if REDIS_URL:
    CACHES = {
        "default": {
            "BACKEND": "planner.project.cache.TolerantRedisCache",
            "LOCATION": REDIS_URL,
            "KEY_PREFIX": "fabric-cache",
            "TIMEOUT": 24 * 3600,
            "OPTIONS": {"socket_connect_timeout": 0.5, "socket_timeout": 2},
        }
    }
else:
    CACHES = {
        "default": {
            "BACKEND": "django.core.cache.backends.locmem.LocMemCache",
            "TIMEOUT": 24 * 3600,
            "OPTIONS": {"MAX_ENTRIES": 1000},
        }
    }
