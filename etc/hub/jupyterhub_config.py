# JupyterHub's configuration for `make hub` (docs/hub.md). scripts/hub.py prepares the
# users, the exchange and the course, and writes the settings this file reads (the JSON
# file GLUONEDU_HUB_SETTINGS names): ports, paths, the roster.
import json
import os

with open(os.environ['GLUONEDU_HUB_SETTINGS']) as settings_file:
    settings = json.load(settings_file)
state = settings['state']
c = get_config()  # noqa: F821

# The hub, its proxy and every user's server on 127.0.0.1 only, on ports free on this
# machine (the public one is the roster's class's; scripts/hub.py checked it).
c.JupyterHub.ip = '127.0.0.1'
c.JupyterHub.port = settings['port']
c.JupyterHub.hub_ip = '127.0.0.1'
c.JupyterHub.hub_port = settings['hub_port']
c.ConfigurableHTTPProxy.command = [settings['proxy']]
c.ConfigurableHTTPProxy.api_url = 'http://127.0.0.1:%d' % settings['proxy_api_port']
c.ConfigurableHTTPProxy.pid_file = os.path.join(state, 'proxy.pid')
# Secrets stay in the state directory (root only), never in the repository.
c.JupyterHub.db_url = 'sqlite:///' + os.path.join(state, 'jupyterhub.sqlite')
c.JupyterHub.cookie_secret_file = os.path.join(state, 'jupyterhub_cookie_secret')

# The system's accounts and passwords (PAM), for the roster's users only; the
# instructor is the only admin.
c.JupyterHub.authenticator_class = 'pam'
c.Authenticator.allowed_users = {settings['instructor'], *settings['students']}
c.Authenticator.admin_users = {settings['instructor']}

# Each user's JupyterLab runs as that Unix user, in their home; what a user's own
# ~/.jupyter says cannot change where it listens or what it loads.
c.JupyterHub.spawner_class = 'localprocess'
c.Spawner.cmd = [settings['singleuser']]
c.Spawner.ip = '127.0.0.1'
c.Spawner.default_url = '/lab'
c.Spawner.disable_user_config = True
# A server starting on a busy machine (a class logging in at 9:00) gets time.
c.Spawner.start_timeout = 120
c.Spawner.http_timeout = 120


def _config_path(spawner):
    role = 'instructor' if spawner.user.name == settings['instructor'] else 'student'
    return settings['config_path'][role]


c.Spawner.environment = dict(settings['environment'], JUPYTER_CONFIG_PATH=_config_path)

# Notebook 12's Ray cluster: with --ray per-user (the default), each user's server gets
# a cluster of its own, run as that user, started before the server and stopped after it
# (scripts/hub.py, UserRayClusters). With --ray shared, the class's one cluster is already
# in every server's environment above.
if settings.get('ray', {}).get('mode') == 'per-user':
    import sys
    sys.path.insert(0, settings['ray']['scripts'])
    from hub import UserRayClusters

    clusters = UserRayClusters(settings)

    # Functions, not the object's bound methods: each spawner gets a deep copy of its
    # configured values, and a bound method's copy would carry a copy of the clusters.
    async def start_ray(spawner):
        await clusters.start(spawner)

    async def stop_ray(spawner):
        await clusters.stop(spawner)

    c.Spawner.pre_spawn_hook = start_ray
    c.Spawner.post_stop_hook = stop_ray
