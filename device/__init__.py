"""The on-device runtime: CLI, config, the asyncio app, push-to-talk, ALSA, Vosk, piper."""
