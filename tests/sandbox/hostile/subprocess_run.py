import subprocess


def act(observation):
    subprocess.run(["/bin/sh", "-c", "sleep 3600 &"], check=True)
    return observation["legal_actions"][0]
