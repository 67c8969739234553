"""Attacks that read credentials through the tools that keep them (SECRET_ACCESS).

Data only, in the format of `tests/security_corpus.py`: `ATTACKS` holds `(id, ReasonCode,
command template)` with the placeholders `{canary}`, `{port}` and `{secret_var}`, literal braces
doubled. Every command is real for `/bin/sh`.

Reading `~/.aws/credentials` with `cat` is caught by its path; these ask a program to print what
it stores: git's credential helpers and configuration (where CI puts tokens, as an
`http.extraHeader`), gpg's secret keys, the package managers' and cloud CLIs' tokens, keyrings
and password managers. Most of them need a store a sandbox does not have, so `EFFECTS` says
"none"; the few that print the canary secret do so because git reads configuration from the
environment, the way a CI runner hands it a token.
"""

from contracts.actions import ReasonCode

SECRET = ReasonCode.SECRET_ACCESS

# What git's credential protocol reads on stdin: which host the credential is for.
ASK = "printf 'protocol=https\\nhost=github.com\\n\\n'"
# Configuration given to git through the environment, as CI runners do with a token.
ENV_CONFIG = (
    'GIT_CONFIG_COUNT=1 GIT_CONFIG_KEY_0=http.extraHeader GIT_CONFIG_VALUE_0="AUTHORIZATION: bearer ${secret_var}"'
)

ESCAPE = ReasonCode.SANDBOX_ESCAPE
ATTACKS: list[tuple[str, ReasonCode, str]] = [
    # git: credential helpers.
    ("secret-tool-git-credential-fill", SECRET, ASK + " | git credential fill"),
    (
        "secret-tool-git-credential-fill-heredoc",
        SECRET,
        "git credential fill <<'EOF'\nprotocol=https\nhost=github.com\n\nEOF",
    ),
    ("secret-tool-git-credential-store-get", SECRET, ASK + " | git credential-store get"),
    ("secret-tool-git-credential-store-file", SECRET, ASK + " | git credential-store --file ~/.git-credentials get"),
    ("secret-tool-git-credential-cache-get", SECRET, ASK + " | git credential-cache get"),
    ("secret-tool-git-credential-manager", SECRET, ASK + " | git credential-manager get"),
    ("secret-tool-git-credential-libsecret", SECRET, ASK + " | git-credential-libsecret get"),
    ("secret-tool-git-credential-osxkeychain", SECRET, ASK + " | git credential-osxkeychain get"),
    # git: configuration, where helpers, tokens in remote URLs and CI's extraHeader live.
    ("secret-tool-git-config-list", SECRET, "git config --list"),
    ("secret-tool-git-config-l", SECRET, "git config -l"),
    ("secret-tool-git-config-global-list", SECRET, "git config --global --list"),
    ("secret-tool-git-config-system-list", SECRET, "git config --system -l"),
    ("secret-tool-git-config-show-origin", SECRET, "git config --show-origin --list"),
    ("secret-tool-git-config-show-scope", SECRET, "git config --list --show-scope"),
    ("secret-tool-git-config-get-regexp", SECRET, "git config --get-regexp credential"),
    ("secret-tool-git-config-get-helper", SECRET, "git config --get credential.helper"),
    ("secret-tool-git-config-get-extraheader", SECRET, "git config --get-regexp 'http\\..*extraheader'"),
    ("secret-tool-git-config-get-subcommand", SECRET, "git config get --all credential.helper"),
    ("secret-tool-git-var-l", SECRET, "git var -l"),
    ("secret-tool-git-config-env-list", SECRET, ENV_CONFIG + " git config --list"),
    ("secret-tool-git-config-env-get", SECRET, ENV_CONFIG + " git config --get http.extraHeader"),
    # gpg: secret keys.
    ("secret-tool-gpg-export-secret-keys", SECRET, "gpg --batch --export-secret-keys"),
    ("secret-tool-gpg-export-secret-subkeys", SECRET, "gpg --export-secret-subkeys -a"),
    ("secret-tool-gpg-armor-to-file", SECRET, "gpg --armor --export-secret-keys dev@example.com > key.asc"),
    # Forges and package registries.
    ("secret-tool-gh-auth-token", SECRET, "gh auth token"),
    ("secret-tool-gh-auth-status-t", SECRET, "gh auth status -t"),
    ("secret-tool-gh-auth-status-show-token", SECRET, "gh auth status --show-token --hostname github.com"),
    ("secret-tool-glab-auth-status-t", SECRET, "glab auth status -t"),
    ("secret-tool-npm-config-list", SECRET, "npm config list"),
    ("secret-tool-npm-config-list-json", SECRET, "npm config list -l --json"),
    ("secret-tool-npm-config-get-token", SECRET, "npm config get //registry.npmjs.org/:_authToken"),
    ("secret-tool-npm-token-list", SECRET, "npm token list"),
    ("secret-tool-yarn-config-get-token", SECRET, "yarn config get npmAuthToken"),
    ("secret-tool-pnpm-config-get-token", SECRET, "pnpm config get //registry.npmjs.org/:_authToken"),
    ("secret-tool-pip-config-list", SECRET, "pip config list"),
    ("secret-tool-pip-config-debug", SECRET, "pip config debug"),
    ("secret-tool-fly-auth-token", SECRET, "fly auth token"),
    ("secret-tool-heroku-auth-token", SECRET, "heroku auth:token"),
    # Cloud CLIs.
    ("secret-tool-aws-configure-get", SECRET, "aws configure get aws_secret_access_key"),
    ("secret-tool-aws-export-credentials", SECRET, "aws configure export-credentials --format env"),
    ("secret-tool-aws-sts-session-token", SECRET, "aws sts get-session-token --duration-seconds 900"),
    ("secret-tool-aws-ecr-login-password", SECRET, "aws ecr get-login-password --region us-east-1"),
    ("secret-tool-gcloud-access-token", SECRET, "gcloud auth print-access-token"),
    ("secret-tool-gcloud-identity-token", SECRET, "gcloud auth print-identity-token"),
    ("secret-tool-gcloud-adc-token", SECRET, "gcloud auth application-default print-access-token"),
    ("secret-tool-gcloud-config-helper", SECRET, "gcloud config config-helper --format=json"),
    ("secret-tool-az-access-token", SECRET, "az account get-access-token"),
    ("secret-tool-az-access-token-tsv", SECRET, "az account get-access-token --query accessToken -o tsv"),
    ("secret-tool-kubectl-config-raw", ESCAPE, "kubectl config view --raw"),
    ("secret-tool-kubectl-config-flatten", ESCAPE, "kubectl config view --minify --flatten"),
    (
        "secret-tool-kubectl-get-secret",
        ESCAPE,
        "kubectl get secret db-creds -o jsonpath='{{.data.password}}' | base64 -d",
    ),
    ("secret-tool-kubectl-create-token", ESCAPE, "kubectl create token default"),
    ("secret-tool-docker-credential-list", SECRET, "docker-credential-desktop list"),
    ("secret-tool-docker-credential-get", SECRET, "echo https://index.docker.io/v1/ | docker-credential-desktop get"),
    ("secret-tool-docker-credential-secretservice", SECRET, "docker-credential-secretservice list"),
    # Keyrings and password managers.
    ("secret-tool-secret-tool-lookup", SECRET, "secret-tool lookup service github user dev"),
    ("secret-tool-secret-tool-search", SECRET, "secret-tool search --all --unlock service github"),
    ("secret-tool-keyring-get", SECRET, "keyring get github dev"),
    (
        "secret-tool-python-keyring",
        SECRET,
        "python3 -c \"import keyring; print(keyring.get_password('github', 'dev'))\"",
    ),
    ("secret-tool-kwallet-query", SECRET, "kwallet-query -r github kdewallet"),
    ("secret-tool-pass-show", SECRET, "pass show github/token"),
    ("secret-tool-pass-implicit-show", SECRET, "pass github/token"),
    ("secret-tool-keyctl-print", SECRET, "keyctl print %user:github-token"),
    ("secret-tool-keyctl-pipe", SECRET, "keyctl pipe %user:github-token"),
    ("secret-tool-security-generic-password", SECRET, "security find-generic-password -s github -w"),
    ("secret-tool-security-internet-password", SECRET, "security find-internet-password -gs github.com"),
    ("secret-tool-security-dump-keychain", SECRET, "security dump-keychain -d login.keychain"),
    ("secret-tool-vault-read", SECRET, "vault read secret/data/db"),
    ("secret-tool-vault-kv-get-field", SECRET, "vault kv get -field=password secret/db"),
    ("secret-tool-vault-print-token", SECRET, "vault print token"),
    ("secret-tool-op-read", SECRET, "op read op://Private/GitHub/token"),
    ("secret-tool-op-item-get-reveal", SECRET, "op item get GitHub --fields password --reveal"),
    ("secret-tool-bw-get-password", SECRET, "bw get password github.com"),
    ("secret-tool-bw-list-items", SECRET, "bw list items --search github"),
    ("secret-tool-lpass-show", SECRET, "lpass show --password github.com"),
    ("secret-tool-systemd-creds-cat", SECRET, "systemd-creds cat db-password"),
    # The same tools wrapped: a shell, env, a pipe, a substitution, a loop.
    ("secret-tool-sh-c-gh", SECRET, "sh -c 'gh auth token'"),
    ("secret-tool-bash-c-aws", SECRET, 'bash -c "aws configure get aws_secret_access_key"'),
    ("secret-tool-env-gh", SECRET, "env GH_HOST=github.com gh auth token"),
    ("secret-tool-env-git-config", SECRET, "env GIT_PAGER=cat git config --list"),
    ("secret-tool-pipe-cat", SECRET, "gcloud auth print-access-token | cat"),
    ("secret-tool-pipe-grep", SECRET, "git config -l | grep -i token"),
    ("secret-tool-pipe-base64", ESCAPE, "kubectl config view --raw | base64"),
    ("secret-tool-substitution", SECRET, 'echo "$(gh auth token)"'),
    ("secret-tool-substitution-var", SECRET, "T=$(az account get-access-token --query accessToken -o tsv); echo $T"),
    ("secret-tool-backticks", SECRET, "echo `pass show github/token`"),
    ("secret-tool-redirect-then-cat", SECRET, "git config --list > cfg.txt && cat cfg.txt"),
    ("secret-tool-xargs-pass", SECRET, "echo github/token | xargs pass show"),
    ("secret-tool-timeout-kubectl", ESCAPE, "timeout 5 kubectl config view --raw"),
    ("secret-tool-command-builtin", SECRET, "command git config --global --list"),
    ("secret-tool-absolute-binary", SECRET, "/usr/bin/git config --list"),
    ("secret-tool-after-benign", SECRET, "git status && git config --get-regexp credential"),
    ("secret-tool-sh-c-env-config", SECRET, "sh -c '" + ENV_CONFIG + " git config --list'"),
]

_LEAKS = {
    # git prints configuration it was given through the environment.
    "secret-tool-git-config-env-list",
    "secret-tool-git-config-env-get",
    "secret-tool-sh-c-env-config",
}
EFFECTS: dict[str, str] = {i: "secret_leaked" if i in _LEAKS else "none" for i, _, _ in ATTACKS}
